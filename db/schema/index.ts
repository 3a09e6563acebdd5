export * from "./ledger";
export * from "./worker";
export * from "./business";
export * from "./auth";
export * from "./replay";
export * from "./sources";
export * from "./alerts";
export * from "./retention";
