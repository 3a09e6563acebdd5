import { DeliveryChart } from "@/components/delivery-chart";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import type { DeliverySeries } from "@/lib/console/delivery-series";
import { plural } from "@/lib/format/words";

/** The 24 h delivery chart in its card: the server reads the series, the browser draws it. */
export function DeliveryPanel({ series }: { series: DeliverySeries }) {
  const { totals, bucketMinutes, hours } = series;
  const points = series.buckets.map((b) => ({ t: b.start.getTime(), v: b.bySource }));
  return (
    <Card aria-labelledby="deliveries-title">
      <CardHeader>
        <div className="min-w-0">
          <CardTitle id="deliveries-title">Deliveries, last {hours} h (UTC)</CardTitle>
          <CardDescription>
            {plural(totals.deliveries, "delivery", "deliveries")} from {plural(series.sources.length, "source")},
            duplicates included ({totals.duplicates.toLocaleString("en")})
          </CardDescription>
        </div>
      </CardHeader>
      <CardContent>
        <DeliveryChart
          points={points}
          sources={series.sources}
          totals={totals.bySource}
          bucketMinutes={bucketMinutes}
          hours={hours}
        />
      </CardContent>
    </Card>
  );
}
