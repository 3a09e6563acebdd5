import { parseArgs, type ParseArgsConfig } from "node:util";
import { describeError } from "@/lib/errors";

type Options = NonNullable<ParseArgsConfig["options"]>;

/**
 * A maintenance command's flags: the values, or the exit code to return at once (0 after the usage for
 * --help, 2 after the error and the usage for a flag it does not know or a missing value).
 */
export function cliArgs<const O extends Options>(
  command: string,
  usage: string,
  options: O,
): ReturnType<typeof parseArgs<{ args: string[]; options: O }>>["values"] | number {
  const args = process.argv.slice(2);
  if (args.includes("--help")) {
    console.error(usage);
    return 0;
  }
  try {
    return parseArgs({ args, options }).values;
  } catch (err) {
    console.error(`${command}: ${describeError(err)}\n${usage}`);
    return 2;
  }
}
