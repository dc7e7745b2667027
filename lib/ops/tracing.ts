// OpenTelemetry traces, off unless OTEL_EXPORTER_OTLP_ENDPOINT is set: then spans go to that OTLP/HTTP endpoint
// (`<endpoint>/v1/traces`, JSON; the exporter also reads OTEL_EXPORTER_OTLP_HEADERS and the OTEL_BSP_* batch
// settings). The SDK line is the 2.x core with the 0.2xx exporters (Node ^18.19 || >=20.6; the 0.300 line needs
// Node 22.15). One trace per turn: toolgate.turn with toolgate.model_step, toolgate.gate, toolgate.approval_wait,
// toolgate.tool_run (the sandbox run for exec) and toolgate.record children. Every string attribute passes the
// redaction the public messages and the audit use (lib/redact.ts); arguments and outputs are never attributes.
// Off, the API's no-op tracer answers every call: a span costs a function call.
import { context, SpanStatusCode, trace, type Attributes, type AttributeValue, type Span } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { log } from "@/lib/log";
import { observeStage } from "./metrics";
import { looksInternal, redactHostPaths } from "@/lib/redact";
import { processSlots } from "@/lib/process-singleton";

const MAX_ATTRIBUTE_CHARS = 256;
const globalForTracing = processSlots<{
  toolgateTracing?: { provider: BasicTracerProvider } | null;
  toolgatePolicyVersions?: WeakMap<object, number>;
}>();

/** Starts the SDK once per process when an endpoint is configured (instrumentation.ts). */
export function startTracing(env: NodeJS.ProcessEnv = process.env): boolean {
  if (globalForTracing.toolgateTracing !== undefined) return globalForTracing.toolgateTracing !== null;
  const endpoint = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  if (!endpoint || env.OTEL_SDK_DISABLED === "true") {
    globalForTracing.toolgateTracing = null;
    return false;
  }
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({
      "service.name": env.OTEL_SERVICE_NAME?.trim() || "toolgate",
      "service.instance.id": `${process.pid}`,
    }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(provider);
  globalForTracing.toolgateTracing = { provider };
  // scripts/server.mjs flushes on SIGTERM through this (it cannot import the app's modules).
  processSlots<{ toolgateFlushTraces: () => Promise<void> }>().toolgateFlushTraces = () => provider.forceFlush();
  log("info", "tracing_started", { endpoint: redactUrl(endpoint) });
  return true;
}

function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}`;
  } catch {
    return "(invalid)";
  }
}

const tracer = () => trace.getTracer("toolgate");

/** An attribute value as the audit would show it: no host paths, no database text, bounded. */
export function safeAttribute(value: unknown): AttributeValue | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === "number" || typeof value === "boolean") return value;
  if (Array.isArray(value)) return value.map((v) => String(safeAttribute(String(v)) ?? "")).slice(0, 32);
  const text = redactHostPaths(String(value));
  if (looksInternal(text)) return "[redacted]";
  return text.length > MAX_ATTRIBUTE_CHARS ? `${text.slice(0, MAX_ATTRIBUTE_CHARS)}…` : text;
}

function safeAttributes(attributes: Record<string, unknown>): Attributes {
  const out: Attributes = {};
  for (const [key, value] of Object.entries(attributes)) {
    const safe = safeAttribute(value);
    if (safe !== undefined) out[key] = safe;
  }
  return out;
}

function failed(span: Span, error: unknown): void {
  span.setStatus({
    code: SpanStatusCode.ERROR,
    message: String(safeAttribute(error instanceof Error ? error.message : String(error)) ?? ""),
  });
}

/**
 * Runs fn inside a span (the active one while it runs, so spans and logs within it belong to it). `root` starts a
 * trace of its own: work woken by a timer or the event bus runs in whatever context scheduled it, often a span of
 * an earlier turn, and must not join that trace.
 */
export async function inSpan<T>(
  name: string,
  attributes: Record<string, unknown>,
  fn: (span: Span) => Promise<T>,
  { root = false } = {},
): Promise<T> {
  return tracer().startActiveSpan(name, { attributes: safeAttributes(attributes), root }, async (span) => {
    try {
      return await fn(span);
    } catch (error) {
      failed(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

/** Adds attributes to the active span (e.g. the turn's outcome), redacted. */
export function annotateSpan(attributes: Record<string, unknown>): void {
  trace.getActiveSpan()?.setAttributes(safeAttributes(attributes));
}

/** The active trace id, for the audit row's details and the logs; undefined when tracing is off. */
export function currentTraceId(): string | undefined {
  const ctx = trace.getActiveSpan()?.spanContext();
  return ctx && trace.isSpanContextValid(ctx) ? ctx.traceId : undefined;
}

/** The policy version a turn's effective policy was compiled from (the gate span names it). */
export function rememberPolicyVersion(policy: object, version: number): void {
  (globalForTracing.toolgatePolicyVersions ??= new WeakMap()).set(policy, version);
}

export function policyVersionOf(policy: object | null | undefined): number | undefined {
  return policy ? globalForTracing.toolgatePolicyVersions?.get(policy) : undefined;
}

/** What the gate's verdict looks like from here (lib/runs/gate.ts; structural, so lib/ops imports no run engine). */
type GateOutcome = {
  verdict: string;
  layer?: string;
  rule?: string;
  decision?: { layer: unknown; rule?: string };
  grantIds?: string[];
};

/**
 * The execution gate's decision, traced and timed: a span with the tool, the decision, the deciding layer and rule,
 * the policy version and the grants used, and the gate stage of toolgate_decision_seconds.
 */
export function observeGate<V extends GateOutcome>(
  toolName: string,
  policyVersion: number | undefined,
  decide: () => V,
): V {
  const started = performance.now();
  const span = tracer().startSpan("toolgate.gate", { attributes: safeAttributes({ "toolgate.tool": toolName }) });
  try {
    const v = decide();
    span.setAttributes(
      safeAttributes({
        "toolgate.decision": v.verdict === "run" ? "allow" : v.verdict,
        "toolgate.layer": v.verdict === "deny" ? v.layer : v.decision?.layer,
        "toolgate.rule": v.verdict === "deny" ? v.rule : v.decision?.rule,
        "toolgate.policy_version": policyVersion,
        "toolgate.grant_ids": v.grantIds?.length ? v.grantIds : undefined,
      }),
    );
    return v;
  } catch (error) {
    failed(span, error);
    throw error;
  } finally {
    span.end();
    observeStage("gate", (performance.now() - started) / 1000);
  }
}

/** The wait for an owner, as a span from the request to its decision (known once the run resumes). */
export function recordApprovalWait(approval: {
  id: string;
  status: string;
  decision: string | null;
  createdAt?: Date;
  resolvedAt?: Date | null;
}): void {
  const span = tracer().startSpan("toolgate.approval_wait", {
    startTime: approval.createdAt ?? new Date(),
    attributes: safeAttributes({
      "toolgate.approval_id": approval.id,
      "toolgate.approval_status": approval.status,
      "toolgate.approval_decision": approval.decision,
    }),
  });
  span.end(approval.resolvedAt ?? new Date());
}
