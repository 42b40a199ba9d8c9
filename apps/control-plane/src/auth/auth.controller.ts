import { Body, Controller, HttpCode, Ip, Post } from '@nestjs/common';
import { ok, type SuccessEnvelope } from '../common/envelope';
import { Public } from './auth.decorators';
import { LoginDto } from './login.dto';
import { LoginService, type LoginResult } from './login.service';

@Controller('api/auth')
export class AuthController {
  constructor(private readonly logins: LoginService) {}

  @Public()
  @Post('login')
  @HttpCode(200)
  async login(@Body() body: LoginDto, @Ip() ip: string): Promise<SuccessEnvelope<LoginResult>> {
    return ok(await this.logins.login(body.email ?? body.username ?? '', body.password, ip));
  }
}
