// The role list for UI code, re-exported so app/ imports nothing but types from db/.
export { ROLES, type Role } from "@/db/schema/auth";
