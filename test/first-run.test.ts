// What a person who opens the service's address sees first (#27's first run): the dashboard.
import { afterAll, beforeAll, expect, it } from "vitest";
import { type TestApp, startTestApp } from "./support/test-app.ts";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

it("GET / redirects to the dashboard's sign-in, which is served; other methods on / stay a JSON 404", async () => {
  const root = await fetch(`${t.url}/`, { redirect: "manual" });
  expect(root.status).toBe(302);
  expect(root.headers.get("location")).toBe("/dashboard/");
  const followed = await fetch(`${t.url}/`);
  expect(followed.status).toBe(200);
  expect(followed.headers.get("content-type")).toMatch(/^text\/html/);
  const post = await fetch(`${t.url}/`, { method: "POST", body: "{}", headers: { "content-type": "application/json" } });
  expect(post.status).toBe(404);
  expect(await post.json()).toEqual({ error: "Not found" });
});
