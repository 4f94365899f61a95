// Invitations and password resets over real HTTP on both dialects, with a real SMTP server: the link
// arrives by mail, works once, and not after it expires or is revoked; the outbox never holds the
// link in clear; a reset request says nothing about whether the address has an account.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { INVITATION_TTL_MS } from "../src/modules/users/invitations.service.ts";
import { PASSWORD_RESET_TTL_MS, RESETS_PER_HOUR } from "../src/modules/users/password-resets.service.ts";
import { type DashboardClient, LOGIN, clientWithCookie, postGraphQL, signedInUser, uniqueEmail } from "./support/dashboard.ts";
import { startSmtpServer } from "./support/smtp.ts";
import { type Merchant, type TestApp, startTestApp } from "./support/test-app.ts";

let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
let t: TestApp;
let merchant: Merchant;
let owner: DashboardClient;
let admin: DashboardClient;
let developer: DashboardClient;

beforeAll(async () => {
  smtp = await startSmtpServer();
  t = await startTestApp({ env: { SMTP_URL: `smtp://user:secret@127.0.0.1:${smtp.port}` } });
  merchant = await t.createMerchant();
  owner = await signedInUser(t, merchant.organizationId, "owner");
  admin = await signedInUser(t, merchant.organizationId, "admin");
  developer = await signedInUser(t, merchant.organizationId, "developer");
});
afterAll(async () => {
  await t?.close();
  await smtp?.close();
});

const codeOf = (body: any) => body.errors?.[0]?.extensions?.code;
const messageOf = (body: any) => body.errors?.[0]?.message;

const INVITE = `mutation($email: String!, $role: UserRole!) { inviteUser(email: $email, role: $role) { id email role expiresAt } }`;
const PENDING = `{ invitations { id email role } }`;
const ACCEPT = `mutation($token: String!, $password: String!) { acceptInvitation(token: $token, password: $password) { user { id email role } organization { id } } }`;
const REQUEST_RESET = `mutation($email: String!) { requestPasswordReset(email: $email) }`;
const RESET = `mutation($token: String!, $newPassword: String!) { resetPassword(token: $token, newPassword: $newPassword) }`;
const VIEWER = `{ viewer { user { email } } }`;

/** Sends the outbox's due mail and answers the messages the SMTP server received to `recipient`. */
async function mailTo(recipient: string) {
  await t.app.mail.runOnce();
  return smtp.received.filter((mail) => [mail.to ?? []].flat().some((to) => to.text === recipient));
}

const tokenIn = (text: string | false | undefined, path: string) => {
  const match = String(text).match(new RegExp(`http://pay\\.example\\.test/dashboard/${path}\\?token=([A-Za-z0-9_-]+)`));
  expect(match, `a ${path} link in the mail`).not.toBeNull();
  return match![1]!;
};

async function invite(by: DashboardClient, role = "developer") {
  const email = uniqueEmail("invitee");
  const answer = await by.graphql(INVITE, { email: email.toUpperCase(), role });
  expect(answer.body.errors).toBeUndefined();
  const [mail] = await mailTo(email);
  return { email, id: answer.body.data.inviteUser.id as string, token: tokenIn(mail?.text, "accept-invite") };
}

describe("invitations", () => {
  it("mails a one-time link that creates the user with the invited role and signs them in", async () => {
    const email = uniqueEmail("invitee");
    const answer = await admin.graphql(INVITE, { email: ` ${email.toUpperCase()} `, role: "developer" });
    expect(answer.body.errors).toBeUndefined();
    const invitation = answer.body.data.inviteUser;
    expect(invitation).toMatchObject({ email, role: "developer" });
    expect((await owner.graphql(PENDING)).body.data.invitations).toContainEqual({ id: invitation.id, email, role: "developer" });

    // The outbox keeps the body sealed: whoever reads the table cannot take the link.
    const [stored] = await t.database.db.mailMessage.findMany({ where: { resourceId: invitation.id } });
    expect(stored).toMatchObject({ kind: "invitation", recipient: email, status: "pending" });
    expect(stored!.textBody).not.toContain("token=");
    const [mail] = await mailTo(email);
    expect(mail!.subject).toBe(`${admin.email} invited you to Test Merchant on Stellar Pay`);
    expect(mail!.text).toContain(`${admin.email} invited you to join Test Merchant's Stellar Pay dashboard as developer.`);
    const token = tokenIn(mail!.text, "accept-invite");
    // The accept page names the organization, the inviter and the role, to whoever holds the link (no session).
    const PREVIEW = `query($token: String!) { invitationPreview(token: $token) { organizationName inviterEmail email role } }`;
    const preview = await postGraphQL(t, { query: PREVIEW, variables: { token } });
    expect(preview.body).toEqual({ data: { invitationPreview: { organizationName: "Test Merchant", inviterEmail: admin.email, email, role: "developer" } } });
    expect(messageOf((await postGraphQL(t, { query: PREVIEW, variables: { token: `${token}x` } })).body)).toBe("This is not an invitation link: copy the whole link from the invitation mail, or ask whoever invited you to send a new one.");
    const row = await t.database.db.invitation.findUniqueOrThrow({ where: { id: invitation.id } });
    expect(row.tokenHash).not.toContain(token);
    expect(row.expiresAt.getTime() - row.createdAt.getTime()).toBe(INVITATION_TTL_MS);
    expect(new Date(invitation.expiresAt)).toEqual(row.expiresAt);

    const accepted = await postGraphQL(t, { query: ACCEPT, variables: { token, password: "a-new-teammate-password" } });
    expect(accepted.body.errors).toBeUndefined();
    expect(accepted.body.data.acceptInvitation).toMatchObject({ user: { email, role: "developer" }, organization: { id: merchant.organizationId } });
    const cookie = accepted.headers.get("set-cookie")!;
    expect(cookie).toMatch(/^sp_session=[^;]+; Path=\/; HttpOnly; SameSite=Lax; Max-Age=\d+$/);
    const newcomer = clientWithCookie(t, { userId: accepted.body.data.acceptInvitation.user.id, email, password: "", cookie: cookie.split(";")[0]! });
    expect((await newcomer.graphql(VIEWER)).body).toEqual({ data: { viewer: { user: { email } } } });
    const login = await postGraphQL(t, { query: LOGIN, variables: { email, password: "a-new-teammate-password" } });
    expect(login.body.data.login.user.role).toBe("developer");

    // One use; and it is no longer pending.
    const again = await postGraphQL(t, { query: ACCEPT, variables: { token, password: "another-password-here" } });
    expect(codeOf(again.body)).toBe("BAD_REQUEST");
    expect(messageOf(again.body)).toBe("This invitation has already been used: sign in with its email address and the password chosen then.");
    expect(messageOf((await postGraphQL(t, { query: PREVIEW, variables: { token } })).body)).toBe("This invitation has already been used: sign in with its email address and the password chosen then.");
    expect((await owner.graphql(PENDING)).body.data.invitations.map((i: any) => i.id)).not.toContain(invitation.id);
  });

  it("refuses what the caller may not do, and bad input, storing and mailing nothing", async () => {
    const email = uniqueEmail("refused");
    const cases = [
      { by: admin, variables: { email, role: "owner" }, code: "FORBIDDEN", message: "Only an owner can invite an owner" },
      { by: developer, variables: { email, role: "viewer" }, code: "FORBIDDEN" },
      { by: owner, variables: { email: "not-an-address", role: "viewer" }, code: "BAD_REQUEST", message: "Email: an email address, such as name@example.com" },
      // A teammate: the caller sees the team, so saying so tells nothing new.
      { by: owner, variables: { email: admin.email, role: "viewer" }, code: "CONFLICT", message: `Email: ${admin.email} is already on your team; change their role on the Team screen instead` },
    ];
    for (const { by, variables, code, message } of cases) {
      const answer = await by.graphql(INVITE, variables);
      expect(codeOf(answer.body), JSON.stringify(variables)).toBe(code);
      if (message) expect(messageOf(answer.body)).toBe(message);
    }
    expect(codeOf((await developer.graphql(PENDING)).body)).toBe("FORBIDDEN");
    expect(await t.database.db.invitation.count({ where: { email: { in: [email, "not-an-address"] } } })).toBe(0);
    expect(await mailTo(email)).toEqual([]);
    // An owner may invite an owner.
    expect((await invite(owner, "owner")).token).toBeTruthy();
  });

  it("answers an address with an account elsewhere exactly as a new one, and mails that person a notice, no link", async () => {
    const other = await t.createMerchant();
    const elsewhere = await signedInUser(t, other.organizationId, "viewer");
    const fresh = uniqueEmail("fresh");
    const answers = [];
    for (const email of [fresh, elsewhere.email]) {
      const answer = await owner.graphql(INVITE, { email, role: "admin" });
      expect(answer.status).toBe(200);
      expect(answer.body.errors).toBeUndefined();
      answers.push(answer.body.data.inviteUser);
    }
    // The same answer but for the id, the address and the moment; both pending alike.
    const shape = ({ id, email, expiresAt, ...rest }: any) => ({ id: id.replace(/[A-Za-z0-9]{16,}$/, "…"), address: [fresh, elsewhere.email].includes(email), expiresAt: typeof expiresAt, ...rest });
    expect(shape(answers[1])).toEqual(shape(answers[0]));
    expect(Math.abs(Date.parse(answers[1].expiresAt) - Date.parse(answers[0].expiresAt))).toBeLessThan(5000);
    const pending = (await owner.graphql(PENDING)).body.data.invitations;
    expect(pending).toEqual(expect.arrayContaining(answers.map(({ id, email, role }: any) => ({ id, email, role }))));
    // The organization's mail log shows the two alike (the body is never shown).
    const MAIL = `query($id: String) { mailMessages(first: 5, resourceId: $id) { edges { node { kind recipient subject status } } } }`;
    const logged = await Promise.all(answers.map(async (a: any) => (await owner.graphql(MAIL, { id: a.id })).body.data.mailMessages.edges.map((e: any) => e.node)));
    expect(logged[1]).toEqual([{ ...logged[0][0], recipient: elsewhere.email }]);

    const [invitation] = await mailTo(fresh);
    tokenIn(invitation?.text, "accept-invite");
    const [notice] = await mailTo(elsewhere.email);
    expect(notice!.subject).toBe(invitation!.subject);
    expect(notice!.text).toContain(`${owner.email} tried to invite this address to Test Merchant's Stellar Pay dashboard as admin.`);
    expect(notice!.text).not.toMatch(/token=|accept-invite|http/);
    // Their account is untouched.
    expect(await t.database.db.user.findUniqueOrThrow({ where: { id: elsewhere.userId } })).toMatchObject({ organizationId: other.organizationId, role: "viewer" });
  });

  it("ends with its sender: removing them revokes their pending invitations, and a planted owner invitation brings no one back", async () => {
    const leaving = await signedInUser(t, merchant.organizationId, "owner");
    const planted = await invite(leaving, "owner");
    const alsoTheirs = await invite(leaving, "developer");
    const ownersOwn = await invite(owner, "viewer");
    const removed = await owner.graphql(`mutation($id: ID!) { removeUser(id: $id) }`, { id: leaving.userId });
    expect(removed.body).toEqual({ data: { removeUser: true } });
    expect(codeOf((await leaving.graphql(VIEWER)).body)).toBe("UNAUTHENTICATED");
    const pending = (await owner.graphql(PENDING)).body.data.invitations.map((i: any) => i.id);
    expect(pending).not.toContain(planted.id);
    expect(pending).not.toContain(alsoTheirs.id);
    expect(pending).toContain(ownersOwn.id);
    for (const { token, email } of [planted, alsoTheirs]) {
      const answer = await postGraphQL(t, { query: ACCEPT, variables: { token, password: "back-as-an-owner" } });
      expect(messageOf(answer.body)).toBe("This invitation was withdrawn: ask whoever invited you to send a new one.");
      expect(answer.headers.get("set-cookie")).toBeNull();
      expect(await t.database.db.user.count({ where: { email } })).toBe(0);
    }
    // The sender's invitations stop working with their power to send them: a demoted owner's owner invitation.
    const demoted = await signedInUser(t, merchant.organizationId, "owner");
    const ownerInvite = await invite(demoted, "owner");
    const UPDATE = `mutation($id: ID!, $password: String!) { updateUserRole(id: $id, role: admin, password: $password) { role } }`;
    expect((await owner.graphql(UPDATE, { id: demoted.userId, password: owner.password })).body.errors).toBeUndefined();
    const refused = await postGraphQL(t, { query: ACCEPT, variables: { token: ownerInvite.token, password: "back-as-an-owner" } });
    expect(refused.body.errors[0]).toMatchObject({
      message: "This invitation was withdrawn: whoever sent it may no longer invite. Ask an owner or admin of the team to send a new one.",
      extensions: { code: "BAD_REQUEST" },
    });
    expect(await t.database.db.user.count({ where: { email: ownerInvite.email } })).toBe(0);
    // The owner's own invitation still works.
    expect((await postGraphQL(t, { query: ACCEPT, variables: { token: ownersOwn.token, password: "a-good-long-password" } })).body.errors).toBeUndefined();
  });

  it("removing the sender while their invitation is being accepted: the newcomer joins only if the accept came first", async () => {
    for (let round = 0; round < 4; round++) {
      const sender = await signedInUser(t, merchant.organizationId, "admin");
      const sent = await invite(sender, "viewer");
      const [accepted, removed] = await Promise.all([
        postGraphQL(t, { query: ACCEPT, variables: { token: sent.token, password: "a-good-long-password" } }),
        owner.graphql(`mutation($id: ID!) { removeUser(id: $id) }`, { id: sender.userId }),
      ]);
      expect(removed.body).toEqual({ data: { removeUser: true } });
      const row = await t.database.db.invitation.findUniqueOrThrow({ where: { id: sent.id } });
      const joined = await t.database.db.user.count({ where: { email: sent.email } });
      // Either the accept committed first (accepted, not revoked, the user exists), or the removal did
      // (revoked, never accepted, no user): never a user from a revoked invitation.
      if (accepted.body.errors) {
        expect({ joined, acceptedAt: row.acceptedAt, revoked: row.revokedAt !== null }).toEqual({ joined: 0, acceptedAt: null, revoked: true });
      } else {
        expect({ joined, revokedAt: row.revokedAt, accepted: row.acceptedAt !== null }).toEqual({ joined: 1, revokedAt: null, accepted: true });
      }
    }
  }, 60_000);

  it("refuses a revoked, an expired or an unknown link, and a short password (the link still works after it)", async () => {
    const revoked = await invite(owner);
    expect((await admin.graphql(`mutation($id: ID!) { revokeInvitation(id: $id) }`, { id: revoked.id })).body).toEqual({ data: { revokeInvitation: true } });
    expect(codeOf((await admin.graphql(`mutation($id: ID!) { revokeInvitation(id: $id) }`, { id: revoked.id })).body)).toBe("NOT_FOUND");
    expect((await owner.graphql(PENDING)).body.data.invitations.map((i: any) => i.id)).not.toContain(revoked.id);

    const short = await invite(owner);
    const tooShort = await postGraphQL(t, { query: ACCEPT, variables: { token: short.token, password: "short" } });
    expect(messageOf(tooShort.body)).toBe("Password: must be at least 10 characters");
    expect(await t.database.db.user.count({ where: { email: short.email } })).toBe(0);
    const retried = await postGraphQL(t, { query: ACCEPT, variables: { token: short.token, password: "long-enough-now" } });
    expect(retried.body.data.acceptInvitation.user.email).toBe(short.email);
    const expiring = await invite(owner);
    t.clock.advance(INVITATION_TTL_MS);

    const refusals = [
      { token: revoked.token, message: "This invitation was withdrawn: ask whoever invited you to send a new one." },
      { token: expiring.token, message: "This invitation has expired (invitations work for 7 days): ask whoever invited you to send a new one." },
      { token: "not-a-token", message: "This is not an invitation link: copy the whole link from the invitation mail, or ask whoever invited you to send a new one." },
    ];
    for (const { token, message } of refusals) {
      const answer = await postGraphQL(t, { query: ACCEPT, variables: { token, password: "a-good-long-password" } });
      expect(codeOf(answer.body)).toBe("BAD_REQUEST");
      expect(messageOf(answer.body)).toBe(message);
      expect(answer.headers.get("set-cookie")).toBeNull();
    }
    expect(await t.database.db.user.count({ where: { email: { in: [revoked.email, expiring.email] } } })).toBe(0);
    // (the owner's earlier session has been idle for a week: a new one)
    const ownerNow = await signedInUser(t, merchant.organizationId, "owner");
    expect((await ownerNow.graphql(PENDING)).body.data.invitations.map((i: any) => i.id)).not.toContain(expiring.id);
  });
});

describe("password reset", () => {
  it("answers true for any address and mails a link only to a user's", async () => {
    const nobody = uniqueEmail("nobody");
    expect((await postGraphQL(t, { query: REQUEST_RESET, variables: { email: nobody } })).body).toEqual({ data: { requestPasswordReset: true } });
    expect(await mailTo(nobody)).toEqual([]);
  });

  it("sets the password with the mailed link once, and ends every session of the user", async () => {
    const user = await signedInUser(t, merchant.organizationId, "viewer");
    const secondSession = await signedInUser(t, merchant.organizationId, "viewer");
    const before = (await mailTo(user.email)).length;
    expect((await postGraphQL(t, { query: REQUEST_RESET, variables: { email: user.email.toUpperCase() } })).body).toEqual({ data: { requestPasswordReset: true } });
    const mails = await mailTo(user.email);
    expect(mails.length).toBe(before + 1);
    expect(mails.at(-1)!.subject).toBe("Reset your Stellar Pay password");
    const token = tokenIn(mails.at(-1)!.text, "reset-password");
    const [stored] = await t.database.db.mailMessage.findMany({ where: { kind: "password_reset", recipient: user.email } });
    expect(stored!.textBody).not.toContain("token=");

    const weak = await postGraphQL(t, { query: RESET, variables: { token, newPassword: "short" } });
    expect(messageOf(weak.body)).toBe("New password: must be at least 10 characters");
    expect((await user.graphql(VIEWER)).body.data.viewer.user.email).toBe(user.email);

    expect((await postGraphQL(t, { query: RESET, variables: { token, newPassword: "a-brand-new-password" } })).body).toEqual({ data: { resetPassword: true } });
    expect(codeOf((await user.graphql(VIEWER)).body)).toBe("UNAUTHENTICATED");
    expect((await secondSession.graphql(VIEWER)).body.data.viewer.user.email).toBe(secondSession.email);
    expect(codeOf((await postGraphQL(t, { query: LOGIN, variables: { email: user.email, password: user.password } })).body)).toBe("UNAUTHENTICATED");
    expect((await postGraphQL(t, { query: LOGIN, variables: { email: user.email, password: "a-brand-new-password" } })).body.data.login.user.email).toBe(user.email);

    const again = await postGraphQL(t, { query: RESET, variables: { token, newPassword: "yet-another-password" } });
    expect(messageOf(again.body)).toBe("This link has already been used: ask for a new one");
  });

  it("refuses an expired or unknown link, and mails at most RESETS_PER_HOUR an hour", async () => {
    const user = await signedInUser(t, merchant.organizationId, "viewer");
    for (let i = 0; i < RESETS_PER_HOUR + 2; i++) {
      expect((await postGraphQL(t, { query: REQUEST_RESET, variables: { email: user.email } })).body).toEqual({ data: { requestPasswordReset: true } });
    }
    const mails = await mailTo(user.email);
    expect(mails.length).toBe(RESETS_PER_HOUR);
    t.clock.advance(PASSWORD_RESET_TTL_MS);
    const expired = await postGraphQL(t, { query: RESET, variables: { token: tokenIn(mails[0]!.text, "reset-password"), newPassword: "a-brand-new-password" } });
    expect(messageOf(expired.body)).toBe("This link has expired (links work for 1 hour): ask for a new one");
    const unknown = await postGraphQL(t, { query: RESET, variables: { token: "nope", newPassword: "a-brand-new-password" } });
    expect(messageOf(unknown.body)).toBe("This is not a password reset link: copy the whole link from the mail, or ask for a new one");
    expect((await postGraphQL(t, { query: LOGIN, variables: { email: user.email, password: user.password } })).body.data.login.user.email).toBe(user.email);
    // An hour later the throttle lets a request through again.
    await postGraphQL(t, { query: REQUEST_RESET, variables: { email: user.email } });
    expect((await mailTo(user.email)).length).toBe(RESETS_PER_HOUR + 1);
  });
});
