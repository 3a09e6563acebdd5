import type { Metadata } from "next";
import Link from "@/components/link";
import { PageHeader } from "@/components/page-header";
import { requirePage } from "../../_lib/session";
import { ErasureForm } from "./_components/erasure-form";

export const metadata: Metadata = { title: "Erasure" };

export default async function ErasurePage() {
  await requirePage("subjects.erase", "/erasure");
  return (
    <>
      <PageHeader
        title="Erase a data subject"
        description={
          <>
            Every event whose raw body, headers or payload mention the customer id or email (those the search index
            names, and those only a read of every stored raw body finds) has its payload, raw body and headers replaced
            by a redaction marker, its searchable ids cleared and its timeline values redacted. The SHA-256 of each raw
            body stays, so the ledger still shows a signed delivery arrived, and a retry of it is still a duplicate.
            Events not processed yet end dead. Afterwards every stored copy is read again: if one still holds the
            subject, the erasure says where and is not done. Each erasure is recorded in the{" "}
            <Link href="/audit" className="text-primary hover:underline">
              audit log
            </Link>{" "}
            with who, when and how many events, never with the subject itself.
          </>
        }
      />
      <ErasureForm />
    </>
  );
}
