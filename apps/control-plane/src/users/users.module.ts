import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { InitialAdminService } from './initial-admin.service';
import { PasswordHasher } from './password-hasher';
import { UserAccountsService } from './user-accounts.service';
import { UserEntity } from './user.entity';

@Module({
  imports: [TypeOrmModule.forFeature([UserEntity])],
  providers: [PasswordHasher, UserAccountsService, InitialAdminService],
  exports: [PasswordHasher, UserAccountsService],
})
export class UsersModule {}
