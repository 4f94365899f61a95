// The one error family. REST maps it to a status and {"error": message} in src/rest/errors.ts;
// GraphQL exposes message and extensions.code. Anything else is a bug and is masked.
export class DomainError extends Error {
  constructor(
    readonly code: string,
    readonly httpStatus: number,
    message: string,
  ) {
    super(message);
    this.name = "DomainError";
  }
}

export const badRequest = (message: string) => new DomainError("BAD_REQUEST", 400, message);
export const unauthorized = () => new DomainError("UNAUTHENTICATED", 401, "Unauthorized");
export const notFound = () => new DomainError("NOT_FOUND", 404, "Not found");
export const conflict = (message: string) => new DomainError("CONFLICT", 409, message);
export const gone = (message: string) => new DomainError("GONE", 410, message);
export const payloadTooLarge = () => new DomainError("PAYLOAD_TOO_LARGE", 413, "Request body is larger than 1 MiB");
export const unsupportedMediaType = () =>
  new DomainError("UNSUPPORTED_MEDIA_TYPE", 415, "Content-Type must be application/json");
export const tooManyRequests = () => new DomainError("RATE_LIMITED", 429, "Too many requests");
