import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiExtraModels, ApiOperation, ApiResponse, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { Actor, type AuditActor } from '../audit/audit-actor';
import { Roles } from '../auth/auth.decorators';
import { ok, paginated, type ListEnvelope, type SuccessEnvelope } from '../common/envelope';
import { pageOf, PageQuery } from '../common/page.query';
import { CreateUserDto } from './create-user.dto';
import type { UserAccount } from './user-accounts.service';
import { UserManagementService } from './user-management.service';
import { UserResponseDto } from './user-response.dto';

const ERRORS = [
  { status: 400, description: 'VALIDATION_ERROR (details.fields names the field and rule)' },
  { status: 401, description: 'Unauthorized' },
  { status: 403, description: 'Forbidden (admin role required)' },
  { status: 429, description: 'RATE_LIMITED' },
];

/** User management: admins only (issue 3). */
@ApiTags('users')
@ApiBearerAuth()
@ApiExtraModels(UserResponseDto)
@Roles('admin')
@Controller('api/users')
export class UsersController {
  constructor(private readonly users: UserManagementService) {}

  @Post()
  @ApiOperation({ summary: 'Create a user (409 EMAIL_EXISTS when the email is taken)' })
  @ApiResponse({ status: 201, schema: { properties: { success: { type: 'boolean', example: true }, data: { $ref: getSchemaPath(UserResponseDto) } } } })
  @ApiResponse({ status: 409, description: 'EMAIL_EXISTS' })
  @ApiResponse(ERRORS[0]!)
  async create(@Body() body: CreateUserDto, @Actor() actor: AuditActor): Promise<SuccessEnvelope<UserAccount>> {
    return ok(await this.users.create(body, actor));
  }

  @Get()
  @ApiOperation({ summary: 'List users (paginated, creation order)' })
  @ApiResponse({
    status: 200,
    schema: {
      properties: {
        success: { type: 'boolean', example: true },
        data: { type: 'array', items: { $ref: getSchemaPath(UserResponseDto) } },
        pagination: { properties: { total: { type: 'integer' }, limit: { type: 'integer' }, offset: { type: 'integer' }, hasMore: { type: 'boolean' } } },
      },
    },
  })
  async list(@Query() query: PageQuery): Promise<ListEnvelope<UserAccount>> {
    const { limit, offset } = pageOf(query);
    const { items, total } = await this.users.list(limit, offset);
    return paginated(items, { total, limit, offset });
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a user (422 LAST_ADMIN for the last admin)' })
  @ApiResponse({ status: 204, description: 'Deleted' })
  @ApiResponse({ status: 404, description: 'USER_NOT_FOUND' })
  @ApiResponse({ status: 422, description: 'LAST_ADMIN' })
  async delete(@Param('id') id: string, @Actor() actor: AuditActor): Promise<void> {
    await this.users.delete(id, actor);
  }
}
