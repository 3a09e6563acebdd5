import type { Metadata } from "next";
import { NotFoundView } from "@/components/not-found-view";

export const metadata: Metadata = { title: "Not found" };

/** Any address no route matches. Next's default page inlines a <style> the nonce CSP blocks; this one does not. */
export default function NotFound() {
  return (
    <main className="mx-auto w-full max-w-2xl p-4 sm:p-8">
      <NotFoundView />
    </main>
  );
}
