// kill -9 while an invoice mail is on its way: the real service (src/main.ts in a child process) is
// killed while the SMTP server holds the message unanswered. Restarted on the same database, the
// message is still there, and is sent again once the dead worker's lease runs out: at least once,
// with the same Message-ID, and recorded once.
import type { AddressInfo } from "node:net";
import { simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";
import { expect, it } from "vitest";
import { isAlive } from "../bench/lib/processes.ts";
import { prepareMerchant, serviceEnv, startServiceProcess } from "../bench/lib/service.ts";
import { fileCleanups } from "./support/file-cleanups.ts";
import { waitFor } from "./support/ledger.ts";
import { freshDatabaseUrl } from "./support/test-app.ts";

const cleanups = fileCleanups();

/** Receives mail; leaves the very first message unanswered, so it is in flight when the service dies. */
async function startHoldingSmtpServer() {
  const messageIds: string[] = [];
  const server = new SMTPServer({
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onData(stream, _session, callback) {
      void simpleParser(stream).then((mail) => {
        messageIds.push(mail.messageId ?? "");
        if (messageIds.length > 1) callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`, messageIds };
}

it("loses no committed mail when the service is killed with SIGKILL mid-send", { timeout: 120_000 }, async () => {
  const database = await freshDatabaseUrl();
  cleanups.push(() => database.drop());
  const smtp = await startHoldingSmtpServer();
  // The lease of a message in flight is 3 x MAIL_TIMEOUT_MS + 30 s: a short timeout keeps the wait short.
  const env = serviceEnv(database.url, { WORKERS: "1", LOG_LEVEL: "silent", SMTP_URL: smtp.url, MAIL_TIMEOUT_MS: "1000" });
  const { org, database: setup } = await prepareMerchant(env);
  cleanups.push(() => setup.close());

  const first = await startServiceProcess(env);
  cleanups.push(() => first.stop());
  const api = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${first.url}/api/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${org.sandbox_api_key}`, ...(body !== undefined && { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return (await response.json()) as { id: string };
  };
  const customer = await api("POST", "/customers", { email: "ada@example.com" });
  const invoice = await api("POST", "/invoices", { amount: "12", customer_id: customer.id });
  await api("POST", `/invoices/${invoice.id}/finalize`);
  const sent = await fetch(`${first.url}/graphql`, {
    method: "POST",
    headers: { authorization: `Bearer ${org.sandbox_api_key}`, "content-type": "application/json" },
    body: JSON.stringify({ query: `mutation ($id: ID!) { sendInvoice(id: $id) { sentAt } }`, variables: { id: invoice.id } }),
  });
  expect(((await sent.json()) as any).data.sendInvoice.sentAt).toBeTruthy();

  // The SMTP server has the message and has not answered: the service dies now.
  await waitFor(async () => smtp.messageIds.length, (n) => n === 1);
  process.kill(first.pid, "SIGKILL");
  await waitFor(async () => isAlive(first.pid), (alive) => !alive);
  const [inFlight] = await setup.db.mailMessage.findMany({ where: { resourceId: invoice.id } });
  expect(inFlight).toMatchObject({ status: "pending", attemptCount: 0 });

  const second = await startServiceProcess(env);
  cleanups.push(() => second.stop());
  await waitFor(async () => smtp.messageIds.length, (n) => n >= 2, 90_000);
  expect(smtp.messageIds[1]).toBe(smtp.messageIds[0]);
  expect(smtp.messageIds[0]).toBe(`<${inFlight!.id}@stellar-pay>`);
  await waitFor(
    async () => (await setup.db.mailMessage.findUnique({ where: { id: inFlight!.id } }))!,
    (message) => message.status === "sent",
  );
  expect(await setup.db.mailMessage.findUnique({ where: { id: inFlight!.id } })).toMatchObject({ status: "sent", attemptCount: 1, lastError: null });
});
