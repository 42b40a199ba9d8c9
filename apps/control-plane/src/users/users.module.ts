import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { RevokedTokenEntity } from '../auth/revoked-token.entity';
import { InitialAdminService } from './initial-admin.service';
import { PasswordHasher } from './password-hasher';
import { UserAccountsService } from './user-accounts.service';
import { UserManagementService } from './user-management.service';
import { UsersController } from './users.controller';
import { UserEntity } from './user.entity';

@Module({
  imports: [TypeOrmModule.forFeature([UserEntity, RevokedTokenEntity])],
  controllers: [UsersController],
  providers: [PasswordHasher, UserAccountsService, UserManagementService, InitialAdminService],
  exports: [PasswordHasher, UserAccountsService],
})
export class UsersModule {}
