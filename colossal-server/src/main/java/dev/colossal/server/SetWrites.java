package dev.colossal.server;

import java.util.List;

/**
 * A set as a write command changes it under its key's lock, whatever its encoding: a one-value set
 * decoded whole ({@link SetValue}) or a bucketed one that reads only the buckets it needs
 * ({@link StoredSet}). Changes are kept in memory until {@link SetCommands#save} stores them.
 */
interface SetWrites {

    /** @return how many of {@code a[from, to)} were not members yet (a member named twice counts once) */
    int addAll(byte[][] a, int from, int to);

    /** @return how many of {@code a[from, to)} were members */
    int removeAll(byte[][] a, int from, int to);

    /** @return the number of members, with the changes so far */
    long count();

    /** @return whether a member was added or removed since the set was read */
    boolean changed();

    /**
     * Removes {@code k} distinct members picked at random (all of them if {@code k} covers the set).
     *
     * @return the members removed
     */
    List<byte[]> pop(long k);

    default boolean add(byte[] m) {
        return addAll(new byte[][] {m}, 0, 1) == 1;
    }

    default boolean remove(byte[] m) {
        return removeAll(new byte[][] {m}, 0, 1) == 1;
    }
}
