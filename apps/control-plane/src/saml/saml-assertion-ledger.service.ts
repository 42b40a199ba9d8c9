import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { LessThan, QueryFailedError, type Repository } from 'typeorm';
import { SamlAssertionEntity } from './saml-assertion.entity';

/**
 * Assertion IDs already accepted (SAML profiles 4.1.4.5), in the database so a replay is caught
 * on every instance; each kept until its assertion would have expired anyway.
 */
@Injectable()
export class SamlAssertionLedger {
  constructor(@InjectRepository(SamlAssertionEntity) private readonly seen: Repository<SamlAssertionEntity>) {}

  /** False when the assertion was accepted before (the primary key decides, so a race has one winner). */
  async firstUse(issuer: string, assertionId: string, until: Date): Promise<boolean> {
    await this.seen.delete({ expiresAt: LessThan(new Date()) });
    const id = createHash('sha256').update(`${issuer}\n${assertionId}`).digest('hex');
    try {
      await this.seen.insert({ id, expiresAt: until });
      return true;
    } catch (error) {
      if (error instanceof QueryFailedError && /unique|duplicate|constraint/i.test(error.message)) return false;
      throw error;
    }
  }
}
