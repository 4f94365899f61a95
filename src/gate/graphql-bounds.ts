// What one GraphQL operation may ask for, the same on /graphql (yoga plugins, graphqlBoundsPlugins)
// and /graphql/stream (parseWithinBounds and validateWithinBounds in sse.ts). Everything here judges
// the document alone, before anything executes: a refused operation costs a parse and a walk of its
// syntax tree, and no database work.
//
// The limits leave room for the checkout page (one `checkout` selection, depth 4, about 70 tokens) and
// for a dashboard (payments -> edges -> node -> customer -> name, pages of 100 with every field), and
// refuse what the type graph's loops allow (payments -> customer -> payments -> ...): the cost
// multiplies by the size of every list on the way down, so two nested pages of 100 are refused
// whatever the depth. Connections answer at most MAX_LIST_SIZE rows (graphql/connection.ts), so the cost bounds
// the size of an answer too.
//
// Anonymous callers in production (config.production) also get no introspection and no "Did you
// mean" hints; callers with an API key keep both.
import { blockFieldSuggestionsPlugin } from "@escape.tech/graphql-armor-block-field-suggestions";
import { costLimitRule } from "@escape.tech/graphql-armor-cost-limit";
import { maxAliasesRule } from "@escape.tech/graphql-armor-max-aliases";
import { maxDepthRule } from "@escape.tech/graphql-armor-max-depth";
import { maxDirectivesRule } from "@escape.tech/graphql-armor-max-directives";
import { MaxTokensParserWLexer, maxTokensPlugin } from "@escape.tech/graphql-armor-max-tokens";
import type { Plugin } from "graphql-yoga";
import {
  type ASTVisitor,
  type ArgumentNode,
  type DocumentNode,
  type FieldNode,
  GraphQLError,
  type GraphQLSchema,
  Kind,
  NoSchemaIntrospectionCustomRule,
  TypeInfo,
  type ValidationRule,
  ValidationContext,
  specifiedRules,
  validate,
  visit,
  visitWithTypeInfo,
} from "graphql";

/** A connection's page when `first`/`last` are absent, and the most it answers (graphql/connection.ts pages with them). */
export const DEFAULT_LIST_SIZE = 20;
export const MAX_LIST_SIZE = 100;

export const GRAPHQL_BOUNDS = {
  /** lexical tokens of the document: a dashboard's largest query has a few hundred */
  maxTokens: 2_000,
  /** field nesting: payments -> edges -> node -> customer -> payments -> edges -> node -> id is 8 */
  maxDepth: 10,
  maxAliases: 15,
  maxDirectives: 20,
  /**
   * graphql-armor's cost (an object 2, a scalar 1, each level down 1.5 times, each list times its
   * size): a page of 100 payments with every field and their customers costs about 17,000; two nested
   * pages of 100 cost over 600,000.
   */
  maxCost: 50_000,
} as const;

export const BOUNDS_ERROR_CODE = "GRAPHQL_VALIDATION_FAILED";

/** Whether the caller gets introspection and field suggestions. */
export type Audience = "trusted" | "anonymous";

export function audienceOf(scope: unknown, production: boolean): Audience {
  return production && !scope ? "anonymous" : "trusted";
}

/** armor reports "Syntax Error: ..." for every refusal; this says what it is, with a code. */
function boundsError(error: GraphQLError): GraphQLError {
  return new GraphQLError(error.message.replace(/^Syntax Error: /, ""), { extensions: { code: BOUNDS_ERROR_CODE } });
}

const armorReporting = (report: (error: GraphQLError) => void) => ({
  exposeLimits: true,
  propagateOnRejection: false,
  onReject: [(_context: unknown, error: GraphQLError) => report(boundsError(error))],
});

/**
 * The document as graphql-armor's cost rule should see it: it multiplies by a `first`/`last` given as
 * a number only, so a list size given as a variable counts as the largest page, an absent one as the
 * default page, and a literal past the largest page as the largest page (what the connection answers).
 */
function withListSizes(schema: GraphQLSchema, document: DocumentNode): DocumentNode {
  const typeInfo = new TypeInfo(schema);
  return visit(
    document,
    visitWithTypeInfo(typeInfo, {
      Field(node: FieldNode) {
        const definition = typeInfo.getFieldDef();
        if (!definition?.args.some((arg) => arg.name === "first")) return undefined;
        const sizes = (node.arguments ?? []).filter((arg) => arg.name.value === "first" || arg.name.value === "last");
        const only = sizes.length === 1 ? sizes[0]!.value : null;
        const size =
          sizes.length === 0 ? DEFAULT_LIST_SIZE : only?.kind === Kind.INT ? Math.min(Number(only.value), MAX_LIST_SIZE) : MAX_LIST_SIZE;
        const first: ArgumentNode = {
          kind: Kind.ARGUMENT,
          name: { kind: Kind.NAME, value: "first" },
          value: { kind: Kind.INT, value: String(Math.max(size, 1)) },
        };
        return { ...node, arguments: [first, ...(node.arguments ?? []).filter((arg) => !sizes.includes(arg))] };
      },
    }),
  );
}

/** graphql-armor's cost rule over the document with its list sizes made explicit (withListSizes). */
function CostLimitRule(context: ValidationContext): ASTVisitor {
  const sized = withListSizes(context.getSchema(), context.getDocument());
  const sizedContext = new ValidationContext(context.getSchema(), sized, new TypeInfo(context.getSchema()), (error) =>
    context.reportError(error),
  );
  const cost = costLimitRule({ maxCost: GRAPHQL_BOUNDS.maxCost, ...armorReporting((e) => context.reportError(e)) })(sizedContext);
  const operations = sized.definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION);
  let index = 0;
  return {
    OperationDefinition() {
      const operation = operations[index++];
      if (operation) cost.onOperationDefinitionEnter(operation);
    },
  };
}

// Named functions: yoga's validation cache tells rule sets apart by their names.
function MaxDepthRule(context: ValidationContext) {
  return maxDepthRule({ n: GRAPHQL_BOUNDS.maxDepth, ...armorReporting((e) => context.reportError(e)) })(context);
}
function MaxAliasesRule(context: ValidationContext) {
  return maxAliasesRule({ n: GRAPHQL_BOUNDS.maxAliases, ...armorReporting((e) => context.reportError(e)) })(context);
}
function MaxDirectivesRule(context: ValidationContext) {
  return maxDirectivesRule({ n: GRAPHQL_BOUNDS.maxDirectives, ...armorReporting((e) => context.reportError(e)) })(context);
}

const BOUNDS_RULES: ValidationRule[] = [MaxDepthRule, MaxAliasesRule, MaxDirectivesRule, CostLimitRule];

// Each parsed document is judged once (the parse caches of both doors hand out the same object).
const judged = new WeakMap<DocumentNode, readonly GraphQLError[]>();

/** The bounds alone: run before graphql's own rules, so a refused document is not validated further. */
function boundsErrors(schema: GraphQLSchema, document: DocumentNode): readonly GraphQLError[] {
  let errors = judged.get(document);
  if (!errors) judged.set(document, (errors = validate(schema, document, BOUNDS_RULES)));
  return errors;
}

/** Rules that depend on who asks: no introspection for anonymous callers in production. */
const audienceRules = (audience: Audience): ValidationRule[] =>
  audience === "anonymous" ? [NoSchemaIntrospectionCustomRule] : [];

const suggestionsHidden = blockFieldSuggestionsPlugin();

/** Validation errors with graphql-armor's "Did you mean" masking for anonymous callers. */
export function forAudience(errors: readonly GraphQLError[], audience: Audience): readonly GraphQLError[] {
  if (audience === "trusted" || errors.length === 0) return errors;
  let masked = errors;
  const end = (suggestionsHidden.onValidate as (payload: unknown) => (end: unknown) => void)({});
  end({ valid: false, result: errors.map((e) => new GraphQLError(e.message, e)), setResult: (r: readonly GraphQLError[]) => (masked = r) });
  return masked;
}

// The token limit stops the parser itself, so a refused document is never parsed whole.
const tokenLimit = {
  n: GRAPHQL_BOUNDS.maxTokens,
  exposeLimits: true,
  propagateOnRejection: true,
  onReject: [
    (_context: unknown, error: GraphQLError) => {
      throw boundsError(error);
    },
  ],
};

/** Parses with the token limit (graphql-armor's parser); throws a GraphQLError when refused or malformed. */
export function parseWithinBounds(query: string): DocumentNode {
  return new MaxTokensParserWLexer(query, tokenLimit).parseDocument();
}

/** Every rule for the stream door: bounds first, then graphql's own and the audience's. */
export function validateWithinBounds(schema: GraphQLSchema, document: DocumentNode, audience: Audience): readonly GraphQLError[] {
  const refused = boundsErrors(schema, document);
  if (refused.length) return refused;
  return forAudience(validate(schema, document, [...specifiedRules, ...audienceRules(audience)]), audience);
}

/**
 * The same bounds as yoga plugins. `audience` tells, from the request, who is asking; it must be known
 * by validation time (yoga builds the context after validating).
 */
export function graphqlBoundsPlugins(audience: (request: Request) => Audience): Plugin[] {
  const hideSuggestions = blockFieldSuggestionsPlugin();
  return [
    maxTokensPlugin(tokenLimit) as Plugin,
    {
      onValidate(payload) {
        const { params, context, setResult, addValidationRule } = payload;
        const refused = boundsErrors(params.schema, params.documentAST);
        if (refused.length) return setResult(refused);
        const who = audience((context as { request: Request }).request);
        for (const rule of audienceRules(who)) addValidationRule(rule);
        if (who === "anonymous") return (hideSuggestions.onValidate as (p: typeof payload) => ReturnType<NonNullable<Plugin["onValidate"]>>)(payload);
        return undefined;
      },
      // Variables are checked as the operation executes, and their errors suggest names too.
      onExecutionResult({ request, result, setResult }) {
        if (!result || Symbol.asyncIterator in result || !result.errors?.length || audience(request) !== "anonymous") return;
        setResult({ ...result, errors: forAudience(result.errors as GraphQLError[], "anonymous") });
      },
    },
  ];
}
