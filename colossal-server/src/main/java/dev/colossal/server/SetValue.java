package dev.colossal.server;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * A set decoded for a write: its members in {@link SetOrder}, changed in memory, then encoded whole
 * again ({@link SetLayout}). It also keeps the encoding Redis would report, which only grows
 * (intset to hashtable), as in Redis: a set that once held a non-integer or more than
 * {@link SetLayout#MAX_INTSET_ENTRIES} members stays a hashtable.
 */
final class SetValue implements SetWrites {

    private List<byte[]> members;
    private byte encoding;
    /** set-max-intset-entries: past this many members an intset becomes a hashtable. */
    private final long maxIntsetEntries;
    /** A member was added or removed since decoding: the set is to be stored again. */
    private boolean changed;

    private SetValue(List<byte[]> members, byte encoding, long maxIntsetEntries) {
        this.members = members;
        this.encoding = encoding;
        this.maxIntsetEntries = maxIntsetEntries;
    }

    /** @return a set with no members yet, an intset until a member makes it a hashtable */
    static SetValue empty(long maxIntsetEntries) {
        return new SetValue(new ArrayList<>(), SetLayout.INTSET, maxIntsetEntries);
    }

    /** @return the one-value set {@code e} holds, decoded */
    static SetValue of(KeyValueStore.Entry e, long maxIntsetEntries) {
        SetView v = new SetView(e);
        int n = v.count();
        List<byte[]> members = new ArrayList<>(n + 1);
        for (int i = 0; i < n; i++) {
            members.add(v.member(i));
        }
        return new SetValue(members, v.encoding(), maxIntsetEntries);
    }

    /**
     * A set of distinct members in any order (an RDB payload's, a union's), with the encoding Redis
     * gives a set it builds by adding them to an empty intset.
     */
    static SetValue loaded(List<byte[]> distinct, long maxIntsetEntries) {
        List<byte[]> sorted = new ArrayList<>(distinct);
        sorted.sort(SetOrder.MEMBERS);
        SetValue s = new SetValue(sorted, SetLayout.INTSET, maxIntsetEntries);
        s.grew();
        return s;
    }

    int size() {
        return members.size();
    }

    @Override
    public long count() {
        return members.size();
    }

    /** @return the members in {@link SetOrder} */
    List<byte[]> members() {
        return members;
    }

    byte[] member(int i) {
        return members.get(i);
    }

    /** @return {@link SetLayout#INTSET} or {@link SetLayout#HASHTABLE} */
    byte encoding() {
        return encoding;
    }

    /** @return whether a member was added or removed since this set was decoded */
    @Override
    public boolean changed() {
        return changed;
    }

    int indexOf(byte[] m) {
        int i = Collections.binarySearch(members, m, SetOrder.MEMBERS);
        return i < 0 ? -1 : i;
    }

    /**
     * Adds {@code a[from, to)}, merging the new ones in one pass rather than shifting the list once
     * per member.
     *
     * @return how many were not members yet
     */
    @Override
    public int addAll(byte[][] a, int from, int to) {
        List<byte[]> fresh = new ArrayList<>(to - from);
        for (int i = from; i < to; i++) {
            if (indexOf(a[i]) < 0) {
                fresh.add(a[i]);
            }
        }
        if (fresh.isEmpty()) {
            return 0;
        }
        fresh.sort(SetOrder.MEMBERS);
        List<byte[]> merged = new ArrayList<>(members.size() + fresh.size());
        int i = 0;
        int added = 0;
        byte[] last = null;
        for (byte[] f : fresh) {
            if (last != null && Arrays.equals(last, f)) {
                continue; // named twice in one command
            }
            while (i < members.size() && SetOrder.MEMBERS.compare(members.get(i), f) < 0) {
                merged.add(members.get(i++));
            }
            merged.add(f);
            last = f;
            added++;
        }
        merged.addAll(members.subList(i, members.size()));
        members = merged;
        changed = true;
        grew();
        return added;
    }

    /** Redis's conversions on an add: a non-integer, or one member past the intset's limit. */
    private void grew() {
        if (encoding == SetLayout.HASHTABLE) {
            return;
        }
        if (members.size() > maxIntsetEntries) {
            encoding = SetLayout.HASHTABLE;
            return;
        }
        // Sorted integers first: the last member is an integer only if all are
        if (!members.isEmpty() && !SetOrder.isInteger(members.getLast())) {
            encoding = SetLayout.HASHTABLE;
        }
    }

    /** @return how many of {@code a[from, to)} were members */
    @Override
    public int removeAll(byte[][] a, int from, int to) {
        boolean[] gone = new boolean[members.size()];
        int removed = 0;
        for (int i = from; i < to; i++) {
            int at = indexOf(a[i]);
            if (at >= 0 && !gone[at]) {
                gone[at] = true;
                removed++;
            }
        }
        if (removed > 0) {
            removeMarked(gone);
        }
        return removed;
    }

    @Override
    public List<byte[]> pop(long k) {
        int n = members.size();
        int[] picks = RandomPicks.distinct(n, (int) Math.min(k, n));
        List<byte[]> popped = new ArrayList<>(picks.length);
        boolean[] gone = new boolean[n];
        for (int i : picks) {
            popped.add(members.get(i));
            gone[i] = true;
        }
        removeMarked(gone);
        return popped;
    }

    /** Removes every member whose place is marked in {@code gone}, in one pass. */
    private void removeMarked(boolean[] gone) {
        List<byte[]> kept = new ArrayList<>(members.size());
        for (int i = 0; i < gone.length; i++) {
            if (!gone[i]) {
                kept.add(members.get(i));
            }
        }
        members = kept;
        changed = true;
    }

    /** @return the payload ({@link SetLayout}) of this set, which is not empty */
    byte[] encode() {
        int n = members.size();
        long length = SetLayout.membersOffset(n);
        for (byte[] m : members) {
            length += m.length;
        }
        if (length > StoredValue.MAX_PAYLOAD) {
            throw new ReplyException("ERR set would exceed the largest value this server stores ("
                    + StoredValue.MAX_PAYLOAD + " bytes encoded); split it over several keys");
        }
        byte[] out = new byte[(int) length];
        out[SetLayout.ENCODING_OFFSET] = encoding;
        SetLayout.putInt(out, SetLayout.COUNT_OFFSET, n);
        int membersAt = (int) SetLayout.membersOffset(n);
        int end = 0;
        for (int i = 0; i < n; i++) {
            byte[] m = members.get(i);
            System.arraycopy(m, 0, out, membersAt + end, m.length);
            end += m.length;
            SetLayout.putInt(out, SetLayout.endOffset(i), end);
        }
        return out;
    }
}
