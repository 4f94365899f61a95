// The OpenAPI document passes two linters as merchants' tools would run them: Spectral with its OAS
// ruleset and the OWASP API Security ruleset (2023), and Redocly's recommended rules. Both run in
// process, offline (rulesets from node_modules, no CLI, no telemetry). Every rule is on except the
// ones in SWITCHED_OFF, each with why; a few findings are accepted one by one in ACCEPTED.
import spectralCore, { type RulesetDefinition } from "@stoplight/spectral-core";
import owasp from "@stoplight/spectral-owasp-ruleset";
import { oas } from "@stoplight/spectral-rulesets";
import { createConfig, lintFromString } from "@redocly/openapi-core";
import { describe, expect, it } from "vitest";
import { API_ROUTES } from "../src/app.ts";
import { openApiDocument } from "../src/rest/openapi.ts";

// Linted as a production installation serves it (https PUBLIC_URL): tests serve it on http.
const documentText = JSON.stringify(openApiDocument(API_ROUTES, "https://pay.example.org"));

/** Rules not run, and why. */
const SWITCHED_OFF: Record<string, string> = {
  // The OWASP resource-exhaustion rules look at every schema in the document, answers and webhook
  // bodies included; a bound on what the service itself writes protects nothing. They run below
  // (INPUT_RULES) on what a client sends: request bodies and parameters.
  "owasp:api4:2023-string-limit": "run on inputs only (input-string-limit)",
  "owasp:api4:2023-array-limit": "run on inputs only (input-array-limit)",
  "owasp:api4:2023-integer-limit": "run on inputs only (input-integer-limit)",
  "owasp:api4:2023-integer-limit-legacy": "run on inputs only (input-integer-limit)",
  "owasp:api4:2023-integer-format": "run on inputs only (input-integer-format)",
  // Free text (descriptions, names, metadata values, a webhook endpoint's description) has no
  // pattern to give: it is bounded by maxLength, which input-string-limit requires.
  "owasp:api4:2023-string-restricted": "free text has no format or pattern; every input string has maxLength",
  // The API is called from merchants' servers with a secret key, never from a browser page: it sends
  // no CORS headers (but on the public document itself), so that no page can use a key it got hold of.
  "owasp:api8:2023-define-cors-origin": "no CORS on a secret-key API, by design",
  // Each installation serves its own document; who to contact is the operator's, not the code's.
  "info-contact": "the operator of an installation, not the code, knows whom to contact",
  "info-license": "the service's API has no licence of its own to declare",
  // Every operation has a summary (the route table's one line); a longer description would repeat it.
  "operation-description": "the summary says it",
};

/** Findings accepted one by one: rule, where (a JSON path), and why. */
const ACCEPTED: { rule: string; at: RegExp; why: string }[] = [
  // GET /openapi.json is public on purpose: it holds no secret, and tools read it without a key.
  { rule: "owasp:api2:2023-read-restricted", at: /^paths\.\/openapi\.json\.get\.security$/, why: "the document is public" },
  { rule: "owasp:api8:2023-define-error-responses-401", at: /^paths\.\/openapi\.json\.get\.responses$/, why: "the document is public" },
  { rule: "owasp:api8:2023-define-error-validation", at: /^paths\.\/openapi\.json\.get\.responses$/, why: "the document takes no input" },
  // 414 and 431 come from the HTTP server's parser, before the request reaches the rate limiter.
  { rule: "owasp:api4:2023-rate-limit", at: /\.responses\.(414|431)\.headers$/, why: "answered before the rate limiter" },
];

/** JSON paths of what a client sends: request bodies and parameters (references resolved). */
const inputsOfType = (type: string) =>
  ["requestBody", "parameters"].flatMap((part) => [
    `$.paths[*][*].${part}..[?(@ && @.type=="${type}")]`,
    `$.paths[*][*].${part}..[?(@ && @.type && @.type.constructor.name === "Array" && @.type.includes("${type}"))]`,
  ]);

const owaspRule = (name: string) => owasp.rules[name as keyof typeof owasp.rules] as object;
const INPUT_RULES = {
  "input-string-limit": { ...owaspRule("owasp:api4:2023-string-limit"), given: inputsOfType("string") },
  "input-array-limit": { ...owaspRule("owasp:api4:2023-array-limit"), given: inputsOfType("array") },
  "input-integer-limit": { ...owaspRule("owasp:api4:2023-integer-limit"), given: inputsOfType("integer") },
  "input-integer-format": { ...owaspRule("owasp:api4:2023-integer-format"), given: inputsOfType("integer") },
};

const accepted = (rule: string, at: string) => ACCEPTED.some((a) => a.rule === rule && a.at.test(at));

describe("the OpenAPI document passes the linters", () => {
  it("Spectral: the OAS ruleset and OWASP API Security 2023, errors and warnings", async () => {
    const spectral = new spectralCore.Spectral();
    // The rulesets' published types do not name their own rules' shapes: given as definitions.
    spectral.setRuleset({
      extends: [
        [oas as RulesetDefinition, "recommended"],
        [owasp as RulesetDefinition, "recommended"],
      ],
      rules: { ...Object.fromEntries(Object.keys(SWITCHED_OFF).map((rule) => [rule, "off"])), ...INPUT_RULES },
    } as RulesetDefinition);
    const results = await spectral.run(documentText);
    // Severities: 0 error, 1 warning, 2 information, 3 hint.
    const findings = results
      .filter((r) => r.severity <= 1)
      .map((r) => ({ rule: String(r.code), at: r.path.join("."), message: r.message }))
      .filter(({ rule, at }) => !accepted(rule, at));
    expect(findings).toEqual([]);
    // The input rules did run: a string input without maxLength would be found.
    const unbounded = JSON.parse(documentText);
    delete unbounded.paths["/payments"].post.requestBody.content["application/json"].schema.properties.description.anyOf[0].maxLength;
    const found = (await spectral.run(JSON.stringify(unbounded))).filter((r) => r.code === "input-string-limit");
    expect(found.map((r) => r.path.join("."))).toContain("paths./payments.post.requestBody.content.application/json.schema.properties.description.anyOf.0");
  });

  it("Redocly: the recommended rules, errors and warnings", async () => {
    const config = await createConfig({
      extends: ["recommended"],
      rules: Object.fromEntries(Object.keys(SWITCHED_OFF).map((rule) => [rule, "off"])),
    });
    const problems = await lintFromString({ source: documentText, absoluteRef: "openapi.json", config });
    expect(problems.map((p) => ({ rule: p.ruleId, at: p.location[0]?.pointer, message: p.message }))).toEqual([]);
  });
});
