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

    /**
     * @return whether the stream under {@code key} has a group {@code name}: its directory read,
     *     not the group's entry (XREADGROUP's check of every key before it reads any)
     * @throws ReplyException WRONGTYPE
     */
    static boolean has(KeyValueStore store, byte[] key, byte[] name) {
        StoredStream s = StoredStream.read(store, key);
        return s != null && of(s).find(name) >= 0;
    }

    private final StoredStream stream;
    /** The groups' names and slots, in name order. */
    private final List<GroupsLayout.Slot> slots;
    /** The directory's slot, or -1 when there are no groups. */
    private long directorySlot;
    /** The {@link GroupsLayout} layout the groups are in: an older one until a save rewrites them all. */
    private int layout;

    private StreamGroups(StoredStream stream, List<GroupsLayout.Slot> slots, long directorySlot, int layout) {
        this.stream = stream;
        this.slots = slots;
        this.directorySlot = directorySlot;
        this.layout = layout;
    }

    /** @return the groups of {@code s} */
    static StreamGroups of(StoredStream s) {
        long state = s.groupsState();
        if (state == 0) {
            return new StreamGroups(s, new ArrayList<>(), -1, GroupsLayout.COUNTED);
        }
        byte[] dir = s.aux(state - 1);
        if (dir == null) {
            throw damaged(s, "directory", state - 1, null);
        }
        try {
            GroupsLayout.Directory d = GroupsLayout.directory(dir);
            return new StreamGroups(s, new ArrayList<>(d.slots()), state - 1, d.layout());
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
        byte[] v = entry(s.slot(), "entry");
        try {
            return layout == GroupsLayout.FIRST ? GroupsLayout.legacyGroup(s.name(), v)
                    : GroupsLayout.group(s.name(), v, layout, slot -> entry(slot, "pending chunk"));
        } catch (BufferUnderflowException | NegativeArraySizeException | ArrayIndexOutOfBoundsException e) {
            throw damaged(stream, "entry", s.slot(), e);
        }
    }

    private byte[] entry(long slot, String what) {
        byte[] v = stream.aux(slot);
        if (v == null) {
            throw damaged(stream, what, slot, null);
        }
        return v;
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
        if (groups.isEmpty()) {
            s.setAux(0, 0);
            return;
        }
        StreamGroups staged = new StreamGroups(s, new ArrayList<>(), -1, GroupsLayout.COUNTED);
        Set<Long> used = new HashSet<>();
        List<Long> freed = new ArrayList<>();
        for (ConsumerGroup g : groups) {
            staged.write(g, used, freed);
        }
        long directory = free(used);
        s.putAux(directory, GroupsLayout.directory(staged.slots, GroupsLayout.COUNTED));
        s.setAux(directory + 1, directory + 1);
    }

    /** Stores {@code g} (new or changed) and commits the stream's header. */
    void save(ConsumerGroup g) {
        Set<Long> used = usedSlots(g);
        List<Long> freed = new ArrayList<>();
        if (layout != GroupsLayout.COUNTED) {
            // the first change since the layout changed rewrites every group in the new one
            for (GroupsLayout.Slot s : List.copyOf(slots)) {
                if (!Arrays.equals(s.name(), g.name)) {
                    write(read(s), used, freed);
                }
            }
            layout = GroupsLayout.COUNTED;
        }
        write(g, used, freed);
        commit(used, freed);
    }

    /**
     * Writes the chunks of {@code g}'s PEL that are new or changed and then its entry into free
     * slots, and names the entry in the directory to be; notes in {@code freed} the slots the
     * commit will free.
     */
    private void write(ConsumerGroup g, Set<Long> used, List<Long> freed) {
        g.pel.compact();
        for (PendingList.Chunk c : g.pel.chunks()) {
            if (c.entries == null) {
                continue;   // not read, so not changed
            }
            byte[] bytes = GroupsLayout.chunk(c.entries);
            if (PendingList.changed(c, bytes)) {
                long slot = free(used);
                used.add(slot);
                stream.putAux(slot, bytes);
                if (c.slot >= 0) {
                    freed.add(c.slot);
                }
                c.slot = slot;
                c.stored = bytes;
            }
        }
        freed.addAll(g.pel.retired());
        g.pel.retired().clear();
        long groupSlot = free(used);
        used.add(groupSlot);
        stream.putAux(groupSlot, GroupsLayout.group(g));
        int i = find(g.name);
        if (i >= 0) {
            freed.add(slots.get(i).slot());
            slots.set(i, new GroupsLayout.Slot(g.name, groupSlot));
        } else {
            slots.add(-(i + 1), new GroupsLayout.Slot(g.name, groupSlot));
        }
    }

    /** Removes group {@code name} and commits. @return whether it was there */
    boolean destroy(byte[] name) {
        int i = find(name);
        if (i < 0) {
            return false;
        }
        Set<Long> used = usedSlots(null);
        GroupsLayout.Slot gone = slots.remove(i);
        List<Long> freed = new ArrayList<>(layout == GroupsLayout.FIRST ? List.of()
                : GroupsLayout.chunkSlots(entry(gone.slot(), "entry"), layout));
        freed.add(gone.slot());
        commit(used, freed);
        return true;
    }

    /** @return every slot in use: the directory, each group's entry and its chunks ({@code g}'s as it holds them, read or dropped) */
    private Set<Long> usedSlots(ConsumerGroup g) {
        Set<Long> used = new HashSet<>();
        if (directorySlot >= 0) {
            used.add(directorySlot);
        }
        for (GroupsLayout.Slot s : slots) {
            used.add(s.slot());
            if (layout == GroupsLayout.FIRST) {
                continue;
            }
            if (g != null && Arrays.equals(s.name(), g.name)) {
                for (PendingList.Chunk c : g.pel.chunks()) {
                    used.add(c.slot);
                }
                used.addAll(g.pel.retired());
            } else {
                used.addAll(GroupsLayout.chunkSlots(entry(s.slot(), "entry"), layout));
            }
        }
        used.remove(-1L);
        return used;
    }

    private static long free(Set<Long> used) {
        long s = 0;
        while (used.contains(s)) {
            s++;
        }
        return s;
    }

    /**
     * Writes the directory into a free slot, the header naming it (the commit point), then frees
     * {@code freed} and the old directory.
     */
    private void commit(Set<Long> used, List<Long> freed) {
        long oldDirectory = directorySlot;
        if (slots.isEmpty()) {
            directorySlot = -1;
        } else {
            directorySlot = free(used);
            used.add(directorySlot);
            stream.putAux(directorySlot, GroupsLayout.directory(slots, layout));
        }
        used.removeAll(freed);
        used.remove(oldDirectory);
        long top = -1;
        for (long s : used) {
            top = Math.max(top, s);
        }
        stream.setAux(top + 1, directorySlot + 1);
        stream.commit();
        for (long s : freed) {
            stream.removeAux(s);
        }
        if (oldDirectory >= 0) {
            stream.removeAux(oldDirectory);
        }
    }
}
