// Preloaded into a child process (node --import): its clock reads CLOCK_SKEW_DAYS ahead of the real one, as on a
// host whose clock is wrong. Only `new Date()` and `Date.now()` move; a Date of a given instant is that instant.
const skewMs = Number(process.env.CLOCK_SKEW_DAYS ?? 0) * 86_400_000;
const RealDate = globalThis.Date;

class SkewedDate extends RealDate {
  constructor(...args) {
    if (args.length === 0) super(RealDate.now() + skewMs);
    else super(...args);
  }

  static now() {
    return RealDate.now() + skewMs;
  }
}

globalThis.Date = SkewedDate;
