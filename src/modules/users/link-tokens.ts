// The random tokens of session cookies and of mailed one-time links (invitations, password resets):
// 32 random bytes, handed out once, stored only as their SHA-256, so a database read signs no one in.
import { createHash, randomBytes } from "node:crypto";
import { badRequest } from "../../errors.ts";

export const newToken = () => randomBytes(32).toString("base64url");

export const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");

/**
 * A link that does not work (any more): `message` for the API, `words` for the person who opened it,
 * saying what to do. The token is no field a person types: GraphQL says what is wrong with the link.
 */
export const linkRefusal = (message: string, words: string) => badRequest(message, { path: [], problem: "", words });
