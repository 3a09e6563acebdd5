export * from "./ledger";
