/** One numbered schema step; `user_version` becomes `version` in the same transaction (docs/ARCHITECTURE.md#the-store-file). */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}
