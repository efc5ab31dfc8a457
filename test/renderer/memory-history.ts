/** An in-memory hash history for renderer tests: records pushes and replaces, and plays back/forward. */
export class MemoryHistory {
  hash = '';
  log: Array<['push' | 'replace', string]> = [];
  #listeners = new Set<() => void>();
  read = () => this.hash;
  push = (hash: string) => {
    this.hash = hash;
    this.log.push(['push', hash]);
  };
  replace = (hash: string) => {
    this.hash = hash;
    this.log.push(['replace', hash]);
  };
  listen = (onChange: () => void) => {
    this.#listeners.add(onChange);
    return () => this.#listeners.delete(onChange);
  };
  /** Simulates back/forward or a link: changes the hash and notifies. */
  go(hash: string): void {
    this.hash = hash;
    for (const l of this.#listeners) l();
  }
}
