/** A usage error: bad flags or arguments, or a value outside its documented range. Exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}
