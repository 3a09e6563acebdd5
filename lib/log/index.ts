export { componentLogger, createLogger, getLogger, logSettingsFromEnv, type Logger, type LogSettings } from "./logger";
export { REQUEST_ID_HEADER, requestIdFor, saneRequestId } from "./request-id";
export { CENSOR, isSecretHeader, safeError, safeHeaders } from "./redact";
