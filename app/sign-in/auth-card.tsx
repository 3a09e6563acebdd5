import { BookCheckIcon } from "lucide-react";
import type { ReactNode } from "react";
import { Card, CardContent } from "@/components/ui/card";

/** The frame of the pages outside the console (sign-in, first-admin setup): one centred card, phone to desktop. */
export function AuthCard({
  title,
  description,
  children,
  footer,
}: {
  title: string;
  description?: ReactNode;
  children: ReactNode;
  footer?: ReactNode;
}) {
  return (
    <main className="flex min-h-dvh flex-col items-center justify-center bg-background px-4 py-10 text-foreground">
      <div className="w-full max-w-sm">
        <div className="mb-6 flex items-center justify-center gap-2.5">
          <span className="flex size-9 items-center justify-center rounded-lg bg-primary text-primary-foreground shadow-xs">
            <BookCheckIcon className="size-5" aria-hidden />
          </span>
          <span className="text-lg font-semibold tracking-tight">Webhook Ledger</span>
        </div>
        <Card>
          <CardContent className="flex flex-col gap-4 p-6">
            <div className="flex flex-col gap-1">
              <h1 className="text-lg font-semibold tracking-tight">{title}</h1>
              {description && <div className="text-sm text-muted-foreground">{description}</div>}
            </div>
            {children}
          </CardContent>
        </Card>
        {footer && <div className="mt-4 text-center text-xs text-muted-foreground">{footer}</div>}
      </div>
    </main>
  );
}
