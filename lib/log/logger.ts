import { createRequire } from "node:module";
import { pino, type DestinationStream, type Logger, type LoggerOptions } from "pino";
import type PinoPretty from "pino-pretty";
import { getEnv, type Env } from "@/lib/env";
import { CENSOR, REDACT_PATHS, safeError, safeHeaders } from "./redact";

export type { Logger } from "pino";

export interface LogSettings {
  level: string;
  format: "json" | "pretty";
}

export function logSettingsFromEnv(env: Pick<Env, "LOG_LEVEL" | "LOG_FORMAT" | "NODE_ENV">): LogSettings {
  return {
    level: env.LOG_LEVEL ?? (env.NODE_ENV === "test" ? "warn" : "info"),
    format: env.LOG_FORMAT ?? (env.NODE_ENV === "development" ? "pretty" : "json"),
  };
}

function loggerOptions(level: string): LoggerOptions {
  return {
    level,
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    serializers: { headers: safeHeaders, err: safeError },
    redact: { paths: REDACT_PATHS, censor: CENSOR },
  };
}

/**
 * Both streams are written synchronously, line by line. Batched asynchronous stdout (sonic-boom's minLength) saved
 * a system call per delivery, but a write still in flight when the process exited raced pino's last flush: lines
 * came out of order, or were lost, at exit.
 */
function fdStreams(): [DestinationStream, DestinationStream] {
  return [pino.destination({ dest: 1, sync: true }), pino.destination({ dest: 2, sync: true })];
}

// pino-pretty is a devDependency: required only when asked for, and a production install without it logs JSON.
function prettyStreams(): [DestinationStream, DestinationStream] | undefined {
  try {
    const pretty = createRequire(import.meta.url)("pino-pretty") as typeof PinoPretty;
    const make = (fd: 1 | 2) =>
      pretty({
        destination: fd,
        sync: true,
        colorize: (fd === 1 ? process.stdout : process.stderr).isTTY,
        translateTime: "SYS:HH:MM:ss.l",
        ignore: "pid,hostname,component",
      });
    return [make(1), make(2)];
  } catch {
    return undefined;
  }
}

/**
 * A logger. Without a destination: info and below on stdout, warn and above on stderr (where
 * console.log and console.error wrote before), as JSON lines or, `format: "pretty"`, for people.
 * Credentials in headers are censored, errors are reduced to message, code and stack.
 */
export function createLogger(opts: Partial<LogSettings> & { destination?: DestinationStream } = {}): Logger {
  const options = loggerOptions(opts.level ?? "info");
  if (opts.destination) return pino(options, opts.destination);
  const [out, err] = (opts.format === "pretty" ? prettyStreams() : undefined) ?? fdStreams();
  const streams = pino.multistream(
    [
      { level: "trace", stream: out },
      { level: "warn", stream: err },
    ],
    { dedupe: true },
  );
  return pino(options, streams);
}

const shared = globalThis as unknown as { __ledgerLogger?: Logger };

/** The process's logger (LOG_LEVEL, LOG_FORMAT), one for every module graph in the process. */
export function getLogger(): Logger {
  if (shared.__ledgerLogger) return shared.__ledgerLogger;
  let settings: LogSettings;
  try {
    settings = logSettingsFromEnv(getEnv());
  } catch {
    settings = { level: "info", format: "json" }; // a bad environment is reported by whoever reads it
  }
  shared.__ledgerLogger = createLogger(settings);
  return shared.__ledgerLogger;
}

/** A part of the process: its lines carry `component` and start with `[name] `, as they always did. */
export function componentLogger(name: string, parent: Logger = getLogger()): Logger {
  return parent.child({ component: name }, { msgPrefix: `[${name}] ` });
}
