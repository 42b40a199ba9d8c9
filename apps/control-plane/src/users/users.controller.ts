import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiExtraModels, ApiOperation, ApiParam, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { Actor, type AuditActor } from '../audit/audit-actor';
import { Roles } from '../auth/auth.decorators';
import { ok, paginated, type ListEnvelope, type SuccessEnvelope } from '../common/envelope';
import { pageOf, PageQuery } from '../common/page.query';
import { Fails, NoContent, Ok, OkList } from '../openapi/openapi-schemas';
import { CreateUserDto } from './create-user.dto';
import { UpdateUserDto } from './update-user.dto';
import type { UserAccount } from './user-accounts.service';
import { UserManagementService } from './user-management.service';
import { UserResponseDto } from './user-response.dto';

const USER = { $ref: getSchemaPath(UserResponseDto) };

/** User management: admins only (issue 3). */
@ApiTags('users')
@ApiExtraModels(UserResponseDto)
@Roles('admin')
@Controller('api/users')
export class UsersController {
  constructor(private readonly users: UserManagementService) {}

  @Post()
  @ApiOperation({ summary: 'Create a user' })
  @Ok(201, USER)
  @Fails(400, 'VALIDATION_ERROR: a missing, bad or unknown field, or a password against the policy (details.fields names the field and rule)')
  @Fails(409, 'EMAIL_EXISTS: "Email already exists"')
  async create(@Body() body: CreateUserDto, @Actor() actor: AuditActor): Promise<SuccessEnvelope<UserAccount>> {
    return ok(await this.users.create(body, actor));
  }

  @Get()
  @ApiOperation({ summary: 'List users (paginated, creation order)' })
  @OkList(USER)
  @Fails(400, 'VALIDATION_ERROR: an unknown or bad query parameter (details.fields)')
  async list(@Query() query: PageQuery): Promise<ListEnvelope<UserAccount>> {
    const { limit, offset } = pageOf(query);
    const { items, total } = await this.users.list(limit, offset);
    return paginated(items, { total, limit, offset });
  }

  @Patch(':id')
  @ApiOperation({ summary: 'Disable or enable a user' })
  @ApiParam({ name: 'id', description: 'User id' })
  @Ok(200, USER)
  @Fails(400, 'VALIDATION_ERROR: disabled missing or not a boolean, or an unknown field (details.fields)')
  @Fails(404, 'USER_NOT_FOUND: "User not found"')
  @Fails(422, 'LAST_ADMIN: the last enabled admin cannot be disabled')
  async update(@Param('id') id: string, @Body() body: UpdateUserDto, @Actor() actor: AuditActor): Promise<SuccessEnvelope<UserAccount>> {
    return ok(await this.users.setDisabled(id, body.disabled, actor));
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a user' })
  @ApiParam({ name: 'id', description: 'User id' })
  @NoContent('Deleted')
  @Fails(404, 'USER_NOT_FOUND: "User not found"')
  @Fails(422, 'LAST_ADMIN: "The last admin cannot be deleted" (the last enabled admin)')
  async delete(@Param('id') id: string, @Actor() actor: AuditActor): Promise<void> {
    await this.users.delete(id, actor);
  }
}
