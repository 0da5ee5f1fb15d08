package dev.colossal.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SortedMap;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.LongSupplier;
import java.util.function.ToLongFunction;

/**
 * The server's numbered databases, {@code 0} to {@code --databases - 1}, each its own map file in
 * the data directory ({@link DatabaseFiles}: {@code db0.map}, as a data directory has always had,
 * and {@code dbN.map}). Database 0's file is opened (or created) at start, with every other file
 * the directory holds; a database without a file reads as empty ({@link UnopenedDatabase}) and its
 * first write creates it, so an unused database costs nothing. A directory with files beyond
 * {@code --databases} is refused ({@link DatabasesMismatchException}) rather than served with keys
 * out of reach.
 *
 * <p>A command finds its database by number, {@link #store}: one array read. Every map shares one
 * set of key locks ({@link KeyLocks}) and, with {@code --maxmemory}, one bound ({@link MemoryBudget}).
 * The data directory's claim ({@link DataDirLock}) is held from {@link #open} to {@link #close}.
 */
final class Databases implements AutoCloseable {

    private final Path dir;
    /** A map file's own bound: {@code --maxmemory} under allkeys-lru, else 0. */
    private final long maxBytes;
    /** Whether {@code --maxmemory-policy} is allkeys-lru: the bound is kept by evicting, in the map files. */
    private final boolean evicts;
    /** {@code maxmemory-policy} now ({@link #usePolicy}). */
    private volatile String policy;
    private final LongSupplier clock;
    private final DataDirLock dirLock;
    private final KeyLocks locks = new KeyLocks();
    /** What each number holds now: its map, or its {@link #unopened} stand-in; SWAPDB trades two. */
    private final AtomicReferenceArray<KeyValueStore> slots;
    private final UnopenedDatabase[] unopened;
    /** Every map opened, in the order opened; copied on change. */
    private volatile List<MapStore> open = List.of();
    private final MemoryBudget budget;
    private ExpirySweeper sweeper;
    private final List<String> report = new ArrayList<>();
    /** Where replication stood at the last clean stop, taken from the directory at open; null if nowhere. */
    private ReplicationCheckpoint resumable;
    /** What {@link #close} leaves for the next server: set by the server once nothing applies commands. */
    private ReplicationCheckpoint leave;

    private Databases(Path dir, int count, long maxBytes, boolean evicts, LongSupplier clock, DataDirLock dirLock) {
        this.dir = dir;
        this.maxBytes = evicts ? maxBytes : 0;
        this.evicts = evicts;
        this.policy = evicts ? ServerConfig.ALLKEYS_LRU : ServerConfig.NOEVICTION;
        this.clock = clock;
        this.dirLock = dirLock;
        this.slots = new AtomicReferenceArray<>(count);
        this.unopened = new UnopenedDatabase[count];
        for (int i = 0; i < count; i++) {
            unopened[i] = new UnopenedDatabase(this, i);
            slots.set(i, unopened[i]);
        }
        this.budget = !evicts ? new MemoryBudget(maxBytes, false) : maxBytes > 0 ? new MemoryBudget(maxBytes) : null;
    }

    /**
     * Claims the data directory and opens its databases: database 0 (created if absent) and every
     * other map file there. A SWAPDB a crash cut short is finished or undone first, and a MOVE
     * ({@link KeyMove}) once every file is open.
     *
     * @param dir      the data directory, created if absent
     * @param count    {@code --databases}
     * @param maxBytes {@code --maxmemory}, 0 for none: every map is created with it, and must have it
     * @param clock    epoch milliseconds
     * @return the databases
     * @throws DatabasesMismatchException if the directory holds files of databases beyond {@code count}
     * @throws MaxMemoryMismatchException if a map was created with another bound
     * @throws IOException if the directory or a map cannot be opened, or another server has the directory
     */
    static Databases open(Path dir, int count, long maxBytes, LongSupplier clock) throws IOException {
        return open(dir, count, maxBytes, true, clock);
    }

    /**
     * {@link #open(Path, int, long, LongSupplier)} with the policy: evicting ({@code allkeys-lru}),
     * every map is made with the bound and must have it; refusing writes ({@code noeviction}),
     * no map has one (an existing one that has is refused), and the bound is the server's alone,
     * which {@link #memoryFull} tells the commands of, and CONFIG SET may change.
     *
     * @param evicts whether {@code maxBytes} is kept by evicting keys
     */
    static Databases open(Path dir, int count, long maxBytes, boolean evicts, LongSupplier clock) throws IOException {
        Files.createDirectories(dir);
        DataDirLock lock = DataDirLock.acquire(dir);
        Databases dbs = new Databases(dir, count, maxBytes, evicts, clock, lock);
        try {
            List<String> swaps = DatabaseFiles.recover(dir);
            SortedMap<Integer, Path> files = DatabaseFiles.list(dir);
            SortedMap<Integer, Path> beyond = files.tailMap(count);
            if (!beyond.isEmpty()) {
                throw new DatabasesMismatchException(dir, count, beyond.values(), beyond.lastKey());
            }
            int repaired = 0;
            long repairNanos = 0;
            dbs.openFile(0);
            for (int db : files.keySet()) {
                if (db != 0) {
                    dbs.openFile(db);
                }
            }
            int moves = KeyMove.finishAtOpen(dbs);   // every file open: a move's two databases are read together
            if (moves > 0) {
                dbs.report.add("colossal: settled " + moves + " MOVE(s) a stop cut short (each key in one database)");
            }
            for (MapStore m : dbs.open) {
                repaired += m.repairedAtOpen();
                repairNanos += m.repairNanos();
                dbs.report.add(m.startupLine());
            }
            dbs.report.addAll(swaps);
            if (lock.previousPid() != null) {
                long life = dbs.repairs();
                dbs.report.add(String.format(Locale.ROOT,
                        "colossal: the last serve of %s (pid %s) did not stop cleanly (killed, crashed, or the machine went down);"
                                + " no recovery step is needed: %d segment(s) it left mid-write repaired in %d ms (%d over the"
                                + " file's life). Every write it acknowledged is in the file, unless the machine lost power before"
                                + " the kernel wrote it back: 'colossal verify %s' checks every entry",
                        dir.toAbsolutePath(), lock.previousPid(), repaired, repairNanos / 1_000_000, life,
                        String.join("' and 'colossal verify ", dbs.open.stream().map(m -> m.path().toString()).toList())));
            }
            if (dbs.budget != null) {
                dbs.budget.trim(); // files served before, together over the bound
            }
            // last, once nothing can refuse the open: whoever opens the directory consumes it
            dbs.resumable = ReplicationCheckpoint.take(dir);
            return dbs;
        } catch (IOException | RuntimeException e) {
            try {
                dbs.closeMaps();
                lock.unclaim();
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            lock.close();
            throw e;
        }
    }

    /** Opens (or creates) database {@code db}'s map and puts it in its slot. Under this object's lock or at start. */
    private MapStore openFile(int db) throws IOException {
        MapStore m = MapStore.openFile(dir, file(db), maxBytes, locks, clock);
        if (sweeper != null) {
            m.watch(sweeper);
        }
        List<MapStore> more = new ArrayList<>(open);
        more.add(m);
        open = List.copyOf(more);
        if (budget != null) {
            budget.add(m);
        }
        slots.setRelease(db, m);
        return m;
    }

    /**
     * @param db a database number, {@code 0 <= db < count()}
     * @return what holds its keys now: its map, or a stand-in that reads as empty and creates the
     *     map on its first write
     */
    KeyValueStore store(int db) {
        return slots.getAcquire(db);
    }

    /**
     * @param store a store {@link #store} gave
     * @return the number it is now, or -1 if none (a database about to be closed): SWAPDB may have
     *     moved it since it was looked up, and then the number is the one its keys are under now
     */
    int indexOf(KeyValueStore store) {
        for (int i = 0; i < slots.length(); i++) {
            if (slots.getAcquire(i) == store || unopened[i] == store) {
                return i;
            }
        }
        return -1;
    }

    /**
     * @param db a database number
     * @return its map, created now if it has none
     * @throws UncheckedIOException if the file cannot be created (a full disk: the write's reply is OOM)
     */
    synchronized MapStore open(int db) {
        if (slots.get(db) instanceof MapStore m) {
            return m;
        }
        try {
            return openFile(db);
        } catch (IOException e) {
            throw new UncheckedIOException("map file=" + file(db) + " could not be created: " + e.getMessage()
                    + "; free disk space and retry", e);
        }
    }

    /** @return database {@code db}'s map, or null if it has no file */
    MapStore opened(int db) {
        return store(db) instanceof MapStore m ? m : null;
    }

    /** @return every open map (database 0's is always among them) */
    List<MapStore> openMaps() {
        return open;
    }

    /** @return an open map: every map has the same options, so any answers what depends on them */
    MapStore anyOpen() {
        return open.getFirst();
    }

    /** @return how many databases there are, {@code --databases} */
    int count() {
        return slots.length();
    }

    /** @return database {@code db}'s map file, whether or not it exists */
    Path file(int db) {
        return dir.resolve(DatabaseFiles.name(db));
    }

    KeyLocks locks() {
        return locks;
    }

    /**
     * SWAPDB: databases {@code a} and {@code b} trade their keys, files included, so that a
     * restart serves each under its new number. A command that read a slot just before the swap
     * may still finish on the database it found there: it ran before the swap.
     *
     * @throws UncheckedIOException if a rename fails; a crash between them is undone or finished at the next start
     */
    synchronized void swap(int a, int b) {
        if (a == b) {
            return;
        }
        try {
            DatabaseFiles.swap(dir, a, b);
        } catch (IOException e) {
            throw new UncheckedIOException("could not swap map files " + file(a) + " and " + file(b) + ": " + e.getMessage(), e);
        }
        KeyValueStore sa = slots.get(a);
        KeyValueStore sb = slots.get(b);
        slots.setRelease(a, sb instanceof MapStore m ? renamed(m, a) : unopened[a]);
        slots.setRelease(b, sa instanceof MapStore m ? renamed(m, b) : unopened[b]);
    }

    private MapStore renamed(MapStore m, int db) {
        m.renamed(file(db));
        return m;
    }

    /** Tells every map, and those opened later, of every write. Called once, before the databases are shared. */
    synchronized void watch(ExpirySweeper s) {
        sweeper = s;
        open.forEach(m -> m.watch(s));
    }

    /** @return what {@code serve} says at start: each map file, swaps recovered, and recovery if the last stop was unclean */
    List<String> startupReport() {
        return report;
    }

    /**
     * @return whether a command that may add data is to be refused with {@code OOM} now: under
     *     {@code noeviction}, the data is over {@code maxmemory} ({@link MemoryBudget#full})
     */
    boolean memoryFull() {
        MemoryBudget b = budget;
        return b != null && b.full();
    }

    /**
     * Sets the policy of a server whose maps have no bound of their own: {@code noeviction} or one
     * of {@link SampledEviction#POLICIES}, at start and by CONFIG SET.
     *
     * @param access the keys' last uses, for {@code volatile-lru}; it counts uses under an LFU policy
     * @throws IllegalStateException if the server started under {@code allkeys-lru}, whose bound is in the map files
     */
    void usePolicy(String name, AccessClock access) {
        if (budget == null || evicts) {
            throw new IllegalStateException("the bound of an allkeys-lru cache is kept by its map files");
        }
        budget.evictBy(name.equals(ServerConfig.NOEVICTION) ? null : new SampledEviction(name, this, access));
        access.countUses(name.endsWith("-lfu"));
        policy = name;
    }

    /** @return {@code maxmemory-policy} now */
    String policy() {
        return policy;
    }

    /** @return whether {@code maxmemory} is kept by evicting ({@code allkeys-lru}), in the map files */
    boolean evicts() {
        return evicts;
    }

    /**
     * @return whether a bound evicts keys by their uses (an {@code -lru} or {@code -lfu} policy with
     *     {@code maxmemory} set), under which Redis gives each small integer value an object of its own
     */
    boolean evictsByUse() {
        return evicts || maxMemory() > 0 && (policy.endsWith("-lru") || policy.endsWith("-lfu"));
    }

    /** @return {@code maxmemory} now, in bytes, 0 for none (CONFIG SET changes it under {@code noeviction}) */
    long maxMemory() {
        MemoryBudget b = budget;
        return b == null ? 0 : b.bound();
    }

    /**
     * CONFIG SET maxmemory under {@code noeviction} (see {@link MemoryBudget#setBound}).
     *
     * @throws IllegalStateException if the bound is kept by evicting
     */
    void setMaxMemory(long bytes) {
        if (budget == null) {
            throw new IllegalStateException("the bound of an evicting cache is in its map files");
        }
        budget.setBound(bytes);
    }

    /** @return the bytes of every database's entries: INFO's {@code used_memory}, what {@code --maxmemory} bounds */
    long usedBytes() {
        return sum(MapStore::usedBytes);
    }

    /** @return the keys every database evicted (INFO's {@code evicted_keys} before CONFIG RESETSTAT) */
    long evictions() {
        return sum(MapStore::evictions);
    }

    /** @return the keys of every database */
    long keys() {
        return sum(MapStore::size);
    }

    /** @return the map files' bytes together, -1 if one cannot be read */
    long fileBytes() {
        long n = 0;
        for (MapStore m : open) {
            long b = m.fileBytes();
            if (b < 0) {
                return -1;
            }
            n += b;
        }
        return n;
    }

    long noRoomRefusals() {
        return sum(MapStore::noRoomRefusals);
    }

    long repairs() {
        return sum(MapStore::repairs);
    }

    private long sum(ToLongFunction<MapStore> of) {
        // by index, not by iterator: the event loops take usedBytes every 100 ms (INFO's peak), and
        // their hot requests allocate nothing (ServerAllocationTest)
        List<MapStore> maps = open;
        long n = 0;
        for (int i = 0; i < maps.size(); i++) {
            n += of.applyAsLong(maps.get(i));
        }
        return n;
    }

    /** Forces every map's written data to the device. */
    void sync() {
        open.forEach(MapStore::sync);
    }

    /** @return where replication stood when the last server here stopped cleanly, or null */
    ReplicationCheckpoint resumable() {
        return resumable;
    }

    /**
     * Has {@link #close} leave {@code checkpoint} for the next server: call once no command can
     * change the data any more, so that it and the maps agree.
     */
    synchronized void leave(ReplicationCheckpoint checkpoint) {
        this.leave = checkpoint;
    }

    /**
     * Closes every map, leaves the replication checkpoint if there is one (only once the maps
     * closed whole), then tells the next server this one stopped cleanly and lets the directory go.
     */
    @Override
    public synchronized void close() throws IOException {
        try {
            closeMaps();
            if (leave != null) {
                leave.save(dir);
            }
            dirLock.stoppedCleanly();
        } finally {
            dirLock.close();
        }
    }

    private void closeMaps() throws IOException {
        IOException first = null;
        for (MapStore m : open) {
            try {
                m.close();
            } catch (IOException e) {
                if (first == null) {
                    first = e;
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }
}
