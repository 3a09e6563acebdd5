import type { Metadata } from "next";
import { Breadcrumb, PageHeader } from "@/components/page-header";
import { PROVIDERS, PROVIDER_KINDS } from "@/lib/providers";
import { secretHint } from "@/lib/sources/secret-hints";
import { LEMON_SQUEEZY_OPTIONS, TYPEFORM_OPTIONS, ZOOM_OPTIONS } from "@/lib/samples/generic";
import { requirePage } from "../../../_lib/session";
import { CreateSource } from "../_components/create-source-form";
import { publicOrigin } from "../../../_lib/public-url";

export const metadata: Metadata = { title: "Add a source" };

const EXAMPLES = {
  Typeform: TYPEFORM_OPTIONS,
  "Lemon Squeezy": LEMON_SQUEEZY_OPTIONS,
  Zoom: ZOOM_OPTIONS,
};

export default async function NewSourcePage() {
  await requirePage("sources.manage", "/sources/new");
  const kinds = PROVIDER_KINDS.map((kind) => ({ kind, label: PROVIDERS[kind].label, secret: secretHint(kind) }));
  const examples = Object.fromEntries(Object.entries(EXAMPLES).map(([k, v]) => [k, JSON.stringify(v, null, 2)]));
  return (
    <>
      <PageHeader
        crumbs={
          <Breadcrumb href="/sources" parent="Sources">
            new
          </Breadcrumb>
        }
        title="Add a source"
        description="A new endpoint, /api/webhooks/<slug>. Its secret is stored sealed (LEDGER_SECRET_KEY) and shown once."
      />
      <CreateSource kinds={kinds} examples={examples} origin={await publicOrigin()} />
    </>
  );
}
