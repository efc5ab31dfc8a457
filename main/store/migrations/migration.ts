/** One numbered schema step; `user_version` becomes `version` in the same transaction (STYLE.md point 9). */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}
