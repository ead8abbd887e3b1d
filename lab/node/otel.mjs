// OpenTelemetry as a Node app sets it up today (node --import ./otel.mjs):
// the Node SDK, undici's instrumentation (both SDKs call fetch, so one
// CLIENT span per HTTP attempt), OTLP/HTTP to the endpoint in
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT. The Anthropic SDK adds its own call
// span through the global tracer provider.
import { NodeSDK } from '@opentelemetry/sdk-node';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';

const sdk = new NodeSDK({ traceExporter: new OTLPTraceExporter(), instrumentations: [new UndiciInstrumentation()] });
sdk.start();
let closing;
process.on('beforeExit', () => { closing ??= sdk.shutdown(); });
