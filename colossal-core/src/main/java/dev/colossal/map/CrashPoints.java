package dev.colossal.map;

/**
 * Named points inside multi-step updates where the crash tests stop the JVM dead, as kill -9
 * would: {@code -Dcolossal.map.crashSite=S -Dcolossal.map.crashAt=N} halts at the N-th time site S
 * is reached. Without the properties the check is a constant the JIT folds away.
 */
final class CrashPoints {

    static final int STORE_ALLOCATED = 1;
    static final int STORE_WRITTEN = 2;
    static final int STORE_PUBLISHED = 3;
    static final int DELETE_UNLINKED = 4;
    static final int REHASH_HALF_COPIED = 5;
    static final int REHASH_PUBLISHED = 6;
    static final int TABLE_RETIRED = 7;
    static final int NEW_CHUNK_LINKED = 8;
    static final int RUN_UNLINKED = 9;
    static final int RUN_WRITTEN = 10;
    static final int EXTENT_TAKEN = 11;
    static final int LOCKED = 12;
    static final int SPARE_TAKEN = 13;
    static final int CHUNK_GIVEN = 14;
    static final int ENTRY_MOVED = 15;
    static final int SITES = 15;

    private static final int SITE = Integer.getInteger("colossal.map.crashSite", 0);
    private static final long AT = Long.getLong("colossal.map.crashAt", 0);
    private static long hits;

    private CrashPoints() {
    }

    static void reach(int site) {
        if (SITE != 0 && SITE == site) {
            hit();
        }
    }

    private static synchronized void hit() {
        if (++hits == AT) {
            Runtime.getRuntime().halt(77);
        }
    }
}
