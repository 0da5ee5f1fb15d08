package dev.colossal.server;

import dev.colossal.map.BytesMap;
import dev.colossal.map.MapOptions;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BiPredicate;
import java.util.function.Consumer;

/**
 * One database's element map, {@code dbN.elements.map} beside its {@code dbN.map}: the elements of
 * its lists, one entry each, and each collection's root ({@link ListLayout}). It never evicts
 * (an element the bound dropped would be a hole in a list); a header the database's map evicts
 * leaves its elements to {@link ListCollector}. Callers hold the owning key's lock.
 */
final class ListElements implements AutoCloseable {

    private static final String SUFFIX = ".map";
    private static final String ELEMENTS_SUFFIX = ".elements.map";

    private final BytesMap map;
    /** Told of the bytes of every element written, with --maxmemory; null without. */
    private volatile MemoryBudget budget;
    private final StreamEndNodes streamEnds = new StreamEndNodes();
    private final StreamNodeBases streamBases = new StreamNodeBases();
    private final StreamAuxEntries streamAux = new StreamAuxEntries();
    private final HashCounts hashCounts = new HashCounts();
    private final ZSetNodeCache zsetNodes = new ZSetNodeCache();
    /** Held while an in-flight entry (RENAMEs', MOVEs') is read and rewritten. */
    private final Object inFlight = new Object();

    /**
     * Runs after each map write of a bucketed hash's, set's or sorted set's change, a RENAME, a
     * MOVE or a copy into this map ({@link #wrote}):
     * a test throws from it to stop the change there, which leaves the maps as a kill after that
     * write would ({@code StopPoints}). A database's own, not a static, so that servers in one JVM
     * never stop each other's writes.
     */
    volatile Runnable afterWrite = () -> { };

    private ListElements(BytesMap map) {
        this.map = map;
    }

    /** @return the element map's file of the database whose map file is {@code dbFile}: {@code db3.map} has {@code db3.elements.map} */
    static Path fileFor(Path dbFile) {
        String name = dbFile.getFileName().toString();
        String base = name.endsWith(SUFFIX) ? name.substring(0, name.length() - SUFFIX.length()) : name;
        return dbFile.resolveSibling(base + ELEMENTS_SUFFIX);
    }

    /**
     * Opens (or creates) an element map, repairing segments a writer that died left mid-write.
     *
     * @throws IOException if it cannot be opened or created
     */
    static ListElements open(Path file) throws IOException {
        BytesMap map = BytesMap.open(file, MapOptions.DEFAULTS);
        try {
            map.recoverLocks();
            return new ListElements(map);
        } catch (RuntimeException e) {
            map.close();
            throw e;
        }
    }

    /** Marks one map write of a change of several done: a point a kill could stop the change at. */
    void wrote() {
        afterWrite.run();
    }

    /** @return the streams' first and last nodes this map holds, kept in memory by {@link StoredStream} */
    StreamEndNodes streamEnds() {
        return streamEnds;
    }

    /** @return the bases of the stream nodes this map holds, kept in memory by {@link StoredStream} */
    StreamNodeBases streamBases() {
        return streamBases;
    }

    /** @return the streams' auxiliary entries this map holds, kept in memory by {@link StoredStream} */
    StreamAuxEntries streamAux() {
        return streamAux;
    }

    /** @return the bucketed hashes' counts this map holds, kept in memory by {@link StoredHash} */
    HashCounts hashCounts() {
        return hashCounts;
    }

    /**
     * @param what the kind of value under {@code key}, for the message
     * @return the element map of {@code store}, which a header of {@code what} under {@code key} needs
     * @throws IllegalStateException if the database has none (its file was deleted)
     */
    static ListElements of(KeyValueStore store, byte[] key, String what) {
        ListElements elements = store.elements(false);
        if (elements == null) {
            throw new IllegalStateException(what + " under a key of length=" + key.length + " has no element map file "
                    + fileFor(store.path()) + ": was it deleted? DEL the key");
        }
        return elements;
    }

    /** @return the big sorted sets' inner nodes this map holds, kept decoded in memory by {@link StoredZSet} */
    ZSetNodeCache zsetNodes() {
        return zsetNodes;
    }

    /** @return the element at {@code position} of collection {@code id}, or null */
    byte[] get(long id, long position) {
        return map.get(ListLayout.elementKey(id, position));
    }

    /**
     * Copies the entry under {@code key} into {@code dst} if it fits, allocating nothing (as
     * {@link BytesMap#get(MemorySegment, MemorySegment)}): a read that searches an element where it lies.
     *
     * @return the entry's length, or -1 if absent
     */
    long read(MemorySegment key, MemorySegment dst) {
        return map.get(key, dst);
    }

    /** Appends the elements at {@code [from, to)} of collection {@code id} to {@code r}, in order, each a bulk reply. */
    void reply(long id, long from, long to, Reply r) {
        ElementReads.mine().reply(map, id, from, to, r);
    }

    void put(long id, long position, byte[] element) {
        put(id, position, element, element.length);
    }

    /** Puts {@code element[0, length)} at {@code position} of collection {@code id}: a buffer's start. */
    void put(long id, long position, byte[] element, int length) {
        map.put(MemorySegment.ofArray(ListLayout.elementKey(id, position)), MemorySegment.ofArray(element), 0, length);
        MemoryBudget b = budget;
        if (b != null) {
            b.wrote(ListLayout.ELEMENT_KEY_LENGTH + length + 32);
        }
    }

    /** Counts every element written from now on in {@code b}, the server's {@code --maxmemory}. */
    void share(MemoryBudget b) {
        budget = b;
    }

    void remove(long id, long position) {
        map.remove(ListLayout.elementKey(id, position));
    }

    /**
     * A new collection for {@code owner}: a random id no root has, whose root is written now,
     * before any element, so that an element never lacks the root that tells whose it is.
     *
     * @return the id
     */
    long newId(byte[] owner) {
        byte[] root = ListLayout.rootValue(owner);
        while (true) {
            long id = ThreadLocalRandom.current().nextLong();
            if (map.putIfAbsent(MemorySegment.ofArray(ListLayout.rootKey(id)), MemorySegment.ofArray(root))) {
                return id;
            }
        }
    }

    /** @return the owner keys of collection {@code id}, or null if it has no root */
    byte[][] owners(long id) {
        byte[] root = map.get(ListLayout.rootKey(id));
        return root == null ? null : ListLayout.ownersOf(root);
    }

    /** Makes {@code owners} collection {@code id}'s owners. */
    void setOwners(long id, byte[]... owners) {
        map.put(ListLayout.rootKey(id), ListLayout.rootValue(owners));
    }

    /** Notes {@code id} in the in-flight RENAMEs entry ({@link HeaderRename}): RENAMEs of other keys run at once, hence the lock. */
    void renameBegins(long id) {
        changeInFlight(HeaderRename.IN_FLIGHT_KEY, v -> HeaderRename.with(v, id));
    }

    /** Removes {@code id} from the in-flight RENAMEs entry, and the entry when it is the last. */
    void renameEnds(long id) {
        changeInFlight(HeaderRename.IN_FLIGHT_KEY, v -> HeaderRename.without(v, id));
    }

    /** @return the collections whose RENAME is in flight, or was when a kill stopped it */
    long[] renamesInFlight() {
        return HeaderRename.ids(inFlight(HeaderRename.IN_FLIGHT_KEY));
    }

    /** Notes a MOVE out of this database in its in-flight entry ({@link KeyMove}). */
    void moveBegins(byte[] move) {
        changeInFlight(KeyMove.IN_FLIGHT_KEY, v -> KeyMove.with(v, move));
    }

    /** Removes a MOVE {@link #moveBegins} noted, and the entry when it is the last. */
    void moveEnds(byte[] move) {
        changeInFlight(KeyMove.IN_FLIGHT_KEY, v -> KeyMove.without(v, move));
    }

    /** @return the MOVEs out of this database in flight, or that were when a kill stopped them, as {@link #moveBegins} took them */
    java.util.List<byte[]> movesInFlight() {
        return KeyMove.moves(inFlight(KeyMove.IN_FLIGHT_KEY));
    }

    /** @return the in-flight entry {@code entryKey}, or null */
    private byte[] inFlight(byte[] entryKey) {
        synchronized (inFlight) {
            return map.get(entryKey);
        }
    }

    /** Rewrites the in-flight entry {@code entryKey} by {@code change}, removing it when that gives null. */
    private void changeInFlight(byte[] entryKey, java.util.function.UnaryOperator<byte[]> change) {
        synchronized (inFlight) {
            byte[] v = change.apply(map.get(entryKey));
            if (v == null) {
                map.remove(entryKey);
            } else {
                map.put(entryKey, v);
            }
        }
    }

    /** Removes collection {@code id}'s elements at {@code [from, to)}, then its root. */
    void drop(long id, long from, long to) {
        for (long p = from; p < to; p++) {
            remove(id, p);
        }
        map.remove(ListLayout.rootKey(id));
    }

    void removeRoot(long id) {
        map.remove(ListLayout.rootKey(id));
    }

    /** One step of a walk over every entry, as {@link BytesMap#scan(long, int, BiPredicate, java.util.function.BiConsumer, Consumer)}. */
    long scan(long cursor, int count, BiPredicate<MemorySegment, MemorySegment> filter,
              Consumer<dev.colossal.map.MapCorruptedException> damaged) {
        return map.scan(cursor, count, filter, (k, v) -> { }, damaged);
    }

    /** @return the file */
    Path path() {
        return map.path();
    }

    /** @return the entries: elements and roots */
    long size() {
        return map.size();
    }

    /** @return a number that changes whenever an entry may have changed ({@link BytesMap#changeStamp}) */
    long changeStamp() {
        return map.changeStamp();
    }

    long usedBytes() {
        return map.usedBytes();
    }

    long fileBytes() {
        try {
            return java.nio.file.Files.size(map.path());
        } catch (IOException e) {
            return -1;
        }
    }

    void clear() {
        map.clear();
    }

    void sync() {
        map.sync();
    }

    @Override
    public void close() throws IOException {
        map.close();
    }
}
