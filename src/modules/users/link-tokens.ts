// The random tokens of session cookies and of mailed one-time links (invitations, password resets):
// 32 random bytes, handed out once, stored only as their SHA-256, so a database read signs no one in.
import { createHash, randomBytes } from "node:crypto";

export const newToken = () => randomBytes(32).toString("base64url");

export const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");
