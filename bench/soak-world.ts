/** What every day of the soak's month works on (bench/soak.ts): the sandbox, the instances, the people. */
import type pg from 'pg';
import type { Sandbox } from '../src/sandbox/sandbox';
import type { OrgRec } from '../src/sandbox/state';
import { sandboxOrg, type UserOrganization } from './lib/harness';
import type { Instance } from './soak-instances';
import type { Person } from './soak-people';

export interface World {
  sandbox: Sandbox;
  instances: Instance[];
  spec: (name: string) => Record<string, unknown>;
  admin: Person;
  staff: Person;
  bookkeeper: Person;
  shop: UserOrganization;
  builders: UserOrganization;
  today: string;
  afterBackup: boolean;
  periodsPosted: Set<string>;
  /** Demo Builders' default bill account, as saved in Settings (CIS Bills sends it with each approval). */
  billAccountId: string;
  /** The database both instances share (the soak reads the ledger's open writes at a kill). */
  db: pg.Client;
}

export function orgOf(world: World, name: string): OrgRec {
  return sandboxOrg(world.sandbox, name);
}
