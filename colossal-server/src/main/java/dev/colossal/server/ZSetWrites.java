package dev.colossal.server;

/**
 * A sorted set as a write command changes it under its key's lock, whatever its encoding: a
 * one-value set decoded whole ({@link ZSetValue}) or a big one that reads only the nodes it needs
 * ({@link StoredZSet}). Changes are kept in memory until the caller stores them.
 */
interface ZSetWrites {

    /**
     * ZADD of one member, as Redis's {@code zsetAdd} ({@link ZSetValue#add}).
     *
     * @return {@link ZSetValue#ADDED}, {@link ZSetValue#UPDATED}, {@link ZSetValue#NOP}, 0 or {@link ZSetValue#NAN}
     */
    int add(double score, byte[] member, int flags, double[] newScore);

    /** @return true if {@code member} was there */
    boolean remove(byte[] member);

    /** @return the members, with the changes so far */
    long count();

    /** Removes the entries of ranks {@code [from, to)}. */
    void removeRanks(long from, long to);

    /** @return the ranks {@code [from, to)} of the entries in {@code range} */
    long[] ranks(ZRange range);

    /** Hands the entries from rank {@code from} on (towards rank 0 if {@code reverse}) to {@code v} until it says stop. */
    void walk(long from, boolean reverse, ZSetTree.Visitor v);

    /** @return whether an entry was added, removed or re-scored since the set was read */
    boolean changed();
}
