package dev.colossal.server;

import java.nio.BufferUnderflowException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The consumer groups of one {@link StoredStream}, read and written under its key's lock in the
 * auxiliary entries {@link GroupsLayout} draws: {@link #save} and {@link #destroy} write the new
 * entries, then the stream's header (the commit point), then free the entries they replaced.
 */
final class StreamGroups {

    /**
     * A stream and one of its groups, as a command finds them under the key's lock.
     *
     * @param stream the stream
     * @param groups its groups
     * @param group  the group named
     */
    record Target(StoredStream stream, StreamGroups groups, ConsumerGroup group) {

        /**
         * @return the stream under {@code key} and its group {@code name}, or null if either is missing
         * @throws ReplyException WRONGTYPE
         */
        static Target of(KeyValueStore store, byte[] key, byte[] name) {
            StoredStream s = StoredStream.read(store, key);
            if (s == null) {
                return null;
            }
            StreamGroups groups = StreamGroups.of(s);
            ConsumerGroup g = groups.get(name);
            return g == null ? null : new Target(s, groups, g);
        }
    }

    private final StoredStream stream;
    /** The groups' names and slots, in name order. */
    private final List<GroupsLayout.Slot> slots;
    /** The directory's slot, or -1 when there are no groups. */
    private long directorySlot;

    private StreamGroups(StoredStream stream, List<GroupsLayout.Slot> slots, long directorySlot) {
        this.stream = stream;
        this.slots = slots;
        this.directorySlot = directorySlot;
    }

    /** @return the groups of {@code s} */
    static StreamGroups of(StoredStream s) {
        long state = s.groupsState();
        if (state == 0) {
            return new StreamGroups(s, new ArrayList<>(), -1);
        }
        byte[] dir = s.aux(state - 1);
        if (dir == null) {
            throw damaged(s, "directory", state - 1, null);
        }
        try {
            return new StreamGroups(s, new ArrayList<>(GroupsLayout.directory(dir)), state - 1);
        } catch (BufferUnderflowException | NegativeArraySizeException e) {
            throw damaged(s, "directory", state - 1, e);
        }
    }

    private static IllegalStateException damaged(StoredStream s, String what, long slot, RuntimeException cause) {
        return new IllegalStateException("consumer groups " + what + " of stream id=" + Long.toHexString(s.id())
                + " at auxiliary slot=" + slot + " is " + (cause == null ? "missing" : "damaged")
                + ": the element map is damaged", cause);
    }

    /** @return the number of groups */
    int size() {
        return slots.size();
    }

    /** @return the groups, in name order (each read from its entry) */
    List<ConsumerGroup> all() {
        List<ConsumerGroup> out = new ArrayList<>(slots.size());
        for (GroupsLayout.Slot s : slots) {
            out.add(read(s));
        }
        return out;
    }

    /** @return the group named {@code name}, or null */
    ConsumerGroup get(byte[] name) {
        int i = find(name);
        return i < 0 ? null : read(slots.get(i));
    }

    private ConsumerGroup read(GroupsLayout.Slot s) {
        byte[] v = stream.aux(s.slot());
        if (v == null) {
            throw damaged(stream, "entry", s.slot(), null);
        }
        try {
            return GroupsLayout.group(s.name(), v);
        } catch (BufferUnderflowException | NegativeArraySizeException | ArrayIndexOutOfBoundsException e) {
            throw damaged(stream, "entry", s.slot(), e);
        }
    }

    private int find(byte[] name) {
        int lo = 0;
        int hi = slots.size() - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            int c = Arrays.compareUnsigned(slots.get(mid).name(), name);
            if (c == 0) {
                return mid;
            }
            if (c < 0) {
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return -(lo + 1);
    }

    /**
     * Writes {@code groups} as the groups of {@code s}, a stream not yet stored (RESTORE's), without
     * committing: the caller's commit of the whole stream names them.
     */
    static void stage(StoredStream s, List<ConsumerGroup> groups) {
        List<ConsumerGroup> sorted = new ArrayList<>(groups);
        sorted.sort((x, y) -> Arrays.compareUnsigned(x.name, y.name));
        List<GroupsLayout.Slot> slots = new ArrayList<>(sorted.size());
        for (int i = 0; i < sorted.size(); i++) {
            s.putAux(i, GroupsLayout.group(sorted.get(i)));
            slots.add(new GroupsLayout.Slot(sorted.get(i).name, i));
        }
        if (sorted.isEmpty()) {
            s.setAux(0, 0);
            return;
        }
        s.putAux(sorted.size(), GroupsLayout.directory(slots));
        s.setAux(sorted.size() + 1, sorted.size() + 1);
    }

    /** Stores {@code g} (new or changed) and commits the stream's header. */
    void save(ConsumerGroup g) {
        Set<Long> used = usedSlots();
        long groupSlot = free(used);
        used.add(groupSlot);
        int i = find(g.name);
        long old = -1;
        if (i >= 0) {
            old = slots.get(i).slot();
            slots.set(i, new GroupsLayout.Slot(g.name, groupSlot));
        } else {
            slots.add(-(i + 1), new GroupsLayout.Slot(g.name, groupSlot));
        }
        stream.putAux(groupSlot, GroupsLayout.group(g));
        commit(used, old);
    }

    /** Removes group {@code name} and commits. @return whether it was there */
    boolean destroy(byte[] name) {
        int i = find(name);
        if (i < 0) {
            return false;
        }
        Set<Long> used = usedSlots();
        long old = slots.remove(i).slot();
        commit(used, old);
        return true;
    }

    private Set<Long> usedSlots() {
        Set<Long> used = new HashSet<>();
        for (GroupsLayout.Slot s : slots) {
            used.add(s.slot());
        }
        if (directorySlot >= 0) {
            used.add(directorySlot);
        }
        return used;
    }

    private static long free(Set<Long> used) {
        long s = 0;
        while (used.contains(s)) {
            s++;
        }
        return s;
    }

    /** Writes the directory into a free slot, the header naming it, then frees {@code oldGroupSlot} and the old directory. */
    private void commit(Set<Long> used, long oldGroupSlot) {
        long oldDirectory = directorySlot;
        long top = -1;
        for (GroupsLayout.Slot s : slots) {
            top = Math.max(top, s.slot());
        }
        if (slots.isEmpty()) {
            directorySlot = -1;
        } else {
            directorySlot = free(used);
            top = Math.max(top, directorySlot);
            stream.putAux(directorySlot, GroupsLayout.directory(slots));
        }
        stream.setAux(top + 1, directorySlot + 1);
        stream.commit();
        if (oldGroupSlot >= 0) {
            stream.removeAux(oldGroupSlot);
        }
        if (oldDirectory >= 0) {
            stream.removeAux(oldDirectory);
        }
    }
}
