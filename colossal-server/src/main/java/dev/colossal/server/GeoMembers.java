package dev.colossal.server;

/**
 * The sorted set a GEO search reads: a member's score (FROMMEMBER's centre), and the members of a
 * score range (a {@link GeoArea} cell), in (score, member) order. A one-value set is searched
 * where it lies; a big one ({@link StoredZSet}) through its score tree, so that a search reads its
 * cells' members and not the whole set.
 */
interface GeoMembers {

    /** @return the score of {@code member}, or null if it is absent */
    Double scoreOf(byte[] member);

    /** Hands {@code v} the entries whose scores are in {@code [min, max)}, lowest first, until it says stop. */
    void range(double min, double max, ZSetTree.Visitor v);

    /** @return the members of the one-value set {@code z} walks */
    static GeoMembers of(ZSetCursor z) {
        return new OneValue(z);
    }

    /** @return the members of the big set {@code z}, read through its trees; valid while its key's lock is held */
    static GeoMembers of(StoredZSet z) {
        return new GeoMembers() {
            @Override
            public Double scoreOf(byte[] member) {
                return z.scoreOf(member);
            }

            @Override
            public void range(double min, double max, ZSetTree.Visitor v) {
                z.walkFromScore(min, (s, m) -> s < max && v.visit(s, m));
            }
        };
    }

    /**
     * A set walked by a {@link ZSetCursor}: its scores are read into an array once, at the first
     * range, so that each range is found by binary search and only its members are copied out.
     */
    final class OneValue implements GeoMembers {

        private final ZSetCursor z;
        private double[] scores;
        private int[] at;

        private OneValue(ZSetCursor z) {
            this.z = z;
        }

        @Override
        public Double scoreOf(byte[] member) {
            return z.find(member) ? z.score() : null;
        }

        @Override
        public void range(double min, double max, ZSetTree.Visitor v) {
            int n = z.count();
            if (scores == null) {
                scores = new double[n];
                at = new int[n];
                z.rewind();
                while (z.next()) {
                    scores[z.index()] = z.score();
                    at[z.index()] = z.entryAt();
                }
            }
            for (int i = firstAtLeast(min); i < n && scores[i] < max; i++) {
                z.seek(i, at[i]);
                z.next();
                if (!v.visit(scores[i], z.member())) {
                    return;
                }
            }
        }

        private int firstAtLeast(double min) {
            int lo = 0;
            int hi = scores.length;
            while (lo < hi) {
                int mid = (lo + hi) >>> 1;
                if (scores[mid] < min) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            return lo;
        }
    }
}
