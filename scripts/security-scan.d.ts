/** Types of the helpers scripts/security-scan.js exports (for its tests). */
export interface Finding {
  check: string;
  severity: string;
  confidence: string;
  file: string;
  location: string;
  description: string;
}
export interface ParseFailure {
  file: string;
  error: string;
}
export declare const SCANNER: string;
export declare const SCAN_TARGET: string;
export declare function parseReport(csv: string): Finding[];
export declare function parseFailures(output: string): ParseFailure[];
export declare function reportIsWhole(csv: string): boolean;
export declare function verdict(
  findings: Finding[],
  failures: ParseFailure[],
): { ok: boolean; counts: Record<'HIGH' | 'MEDIUM' | 'LOW' | 'INFORMATIONAL', number>; unreadable: number };
export declare function main(): Promise<number>;
export declare const OFFLINE_PRELOAD: string;
