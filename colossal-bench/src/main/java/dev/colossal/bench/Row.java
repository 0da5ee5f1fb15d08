package dev.colossal.bench;

/**
 * One measured case: ours against a peer measured in the same run, or an absolute figure.
 *
 * @param caseName       what was measured, e.g. {@code "sequential read, 8M doubles"}
 * @param ours           which Colossal variant
 * @param peer           the peer, or {@code null} for an absolute figure
 * @param unit           the unit of both values, e.g. {@code ops/s} or {@code ns/op}
 * @param oursValue      our score
 * @param oursError      our score's error (JMH 99.9% half-width), or {@code NaN} if unknown
 * @param peerValue      the peer's score, or {@code null}
 * @param peerError      the peer's error, or {@code null}
 * @param higherIsBetter whether a larger value is better
 * @param target         the ratio to reach (or, without a peer, the value to reach), or {@code null}
 * @param note           anything a reader needs to interpret the row (flags, sizes), or {@code null}
 */
public record Row(String caseName, String ours, String peer, String unit,
                  double oursValue, double oursError, Double peerValue, Double peerError,
                  boolean higherIsBetter, Double target, String note) {

    /**
     * A comparison with a peer.
     *
     * @param caseName       what was measured
     * @param ours           our variant
     * @param oursResult     our result
     * @param peer           the peer
     * @param peerResult     the peer's result (same unit)
     * @param higherIsBetter whether more is better
     * @param target         the ratio to reach, or {@code null}
     * @return the row
     */
    public static Row versus(String caseName, String ours, Jmh.Result oursResult, String peer,
                             Jmh.Result peerResult, boolean higherIsBetter, Double target) {
        return new Row(caseName, ours, peer, oursResult.unit(), oursResult.score(), oursResult.error(),
                peerResult.score(), peerResult.error(), higherIsBetter, target, null);
    }

    /**
     * An absolute figure with no peer.
     *
     * @param caseName       what was measured
     * @param ours           our variant
     * @param result         our result
     * @param higherIsBetter whether more is better
     * @param target         the value to reach, or {@code null}
     * @return the row
     */
    public static Row absolute(String caseName, String ours, Jmh.Result result, boolean higherIsBetter,
                               Double target) {
        return new Row(caseName, ours, null, result.unit(), result.score(), result.error(), null, null,
                higherIsBetter, target, null);
    }

    /**
     * @param text the note
     * @return this row with a note
     */
    public Row withNote(String text) {
        return new Row(caseName, ours, peer, unit, oursValue, oursError, peerValue, peerError,
                higherIsBetter, target, text);
    }

    /**
     * @return ours/peer when higher is better, peer/ours otherwise, so that {@code ratio >= target}
     *     always means the target is met; {@code null} without a peer
     */
    public Double ratio() {
        if (peerValue == null) {
            return null;
        }
        return higherIsBetter ? oursValue / peerValue : peerValue / oursValue;
    }

    /** @return whether the target is met, or {@code null} if there is no target */
    public Boolean met() {
        if (target == null) {
            return null;
        }
        if (peerValue != null) {
            return ratio() >= target;
        }
        return higherIsBetter ? oursValue >= target : oursValue <= target;
    }
}
