package dev.colossal.server;

import java.util.AbstractList;
import java.util.Arrays;
import java.util.RandomAccess;

/**
 * Keys' deadlines in scan order (DEBUG DIGEST's step of keys), held as {@code long}s: a list of
 * {@code Long} boxed every deadline past 127 of a 300k-key scan. Read without boxing by {@link #at};
 * the {@code List} face boxes each one it hands out.
 */
final class Deadlines extends AbstractList<Long> implements RandomAccess {

    private long[] at = new long[64];
    private int size;
    private int expiring;

    /** Appends {@code deadline} ({@link StoredValue#NO_EXPIRY} for none). */
    void add(long deadline) {
        if (size == at.length) {
            at = Arrays.copyOf(at, 2 * size);
        }
        at[size++] = deadline;
        if (deadline != StoredValue.NO_EXPIRY) {
            expiring++;
        }
    }

    /** The {@code List} face's append (a boxed deadline picks it over {@link #add(long)}): the same. */
    @Override
    public boolean add(Long deadline) {
        add(deadline.longValue());
        return true;
    }

    /** @return the {@code i}th deadline, {@link StoredValue#NO_EXPIRY} for none */
    long at(int i) {
        return at[java.util.Objects.checkIndex(i, size)];
    }

    /** @return how many are not {@link StoredValue#NO_EXPIRY} */
    int expiring() {
        return expiring;
    }

    @Override
    public Long get(int i) {
        return at(i);
    }

    @Override
    public int size() {
        return size;
    }
}
