package dev.colossal.bench.map;

import dev.colossal.map.BytesMap;
import dev.colossal.map.MapOptions;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import net.openhft.chronicle.map.ChronicleMap;
import org.lmdbjava.Dbi;
import org.lmdbjava.DbiFlags;
import org.lmdbjava.Env;
import org.lmdbjava.EnvFlags;
import org.lmdbjava.Txn;
import org.mapdb.DB;
import org.mapdb.DBMaker;
import org.mapdb.Serializer;

/** One map implementation behind the operations the suite measures: int keys, byte[] values. */
abstract class Store implements AutoCloseable {

    /** Stores a value. */
    abstract void put(int key, byte[] value);

    /**
     * Reads a value; returns its length, or -1 if absent (so nothing is optimised away). The
     * off-heap stores copy the value's bytes into a buffer of their own, reused, so that every one
     * reads them and none allocates per get (MapDB can only deserialise into a new array; the heap
     * baseline returns the array it holds).
     */
    abstract int get(int key);

    /**
     * Reads the values of {@code keys[from, from + n)} ({@code n} at most {@link MapBench#BATCH}),
     * by the store's batched get if it has one; returns the sum of their lengths (-1 per absent).
     * None of the peers has a batched get (Chronicle Map's {@code getAll} writes the map to a
     * file), so theirs is a loop of gets; lmdbjava's is one read transaction for the batch.
     */
    int getBatch(int[] keys, int from, int n) {
        int sum = 0;
        for (int i = 0; i < n; i++) {
            sum += get(keys[from + i]);
        }
        return sum;
    }

    /**
     * Writes {@code value} under {@code keys[from, from + n)} ({@code n} at most {@link
     * MapBench#BATCH}) by the store's batched put if it has one. Chronicle Map's and MapDB's
     * {@code putAll} are a put per entry, so theirs is a loop of puts; lmdbjava's is one write
     * transaction for the batch.
     */
    void putBatch(int[] keys, int from, int n, byte[] value) {
        for (int i = 0; i < n; i++) {
            put(keys[from + i], value);
        }
    }

    /**
     * Removes {@code keys[from, from + n)} and puts them back with {@code value}, by the store's
     * batched remove and put if it has them (see {@link #putBatch}); peers: a loop of removes,
     * then {@link #putBatch}.
     */
    void deleteBatch(int[] keys, int from, int n, byte[] value) {
        for (int i = 0; i < n; i++) {
            remove(keys[from + i]);
        }
        putBatch(keys, from, n, value);
    }

    /**
     * The last byte of the value the last {@link #get} copied out (a 2 KiB value's last cache
     * line): what a caller that uses the value waits for, so that {@link GetChainMain} can make the
     * next key depend on it. Stores that hand out no copy of their own do not say.
     */
    int lastValueByte() {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " keeps no copy of the last value");
    }

    /** Removes a key. */
    abstract void remove(int key);

    /** Visits every entry; returns the sum of value lengths. */
    abstract long iterate();

    /** {@code valueSize}: the size of every value, so that peers that need sizing up front get it right. */
    static Store create(String name, Path dir, int entries, int valueSize) throws IOException {
        return switch (name) {
            case "colossal" -> new Colossal(dir, valueSize, true);
            case "colossal-unverified" -> new Colossal(dir, valueSize, false);
            case "chm" -> new Chm();
            case "chronicle" -> new Chronicle(dir, entries, valueSize);
            case "mapdb" -> new MapDb(dir);
            case "lmdb" -> new Lmdb(dir, entries, valueSize);
            default -> throw new IllegalArgumentException("store=" + name);
        };
    }

    /**
     * Ours: the raw map, reading into a reused native buffer (no allocation per get);
     * "colossal-unverified" opens it with {@code MapOptions.withVerifyReads(false)}.
     */
    static final class Colossal extends Store {
        private final BytesMap map;
        private final MemorySegment key = Arena.ofAuto().allocate(4);
        private final MemorySegment value;
        private final MemorySegment dst;
        private final MemorySegment[] batchKeys = new MemorySegment[MapBench.BATCH];
        private final MemorySegment[] batchValues = new MemorySegment[MapBench.BATCH];
        private final long[] lengths = new long[MapBench.BATCH];
        private final MemorySegment batchDst;

        Colossal(Path dir, int valueSize, boolean verifyReads) throws IOException {
            map = BytesMap.open(dir.resolve("colossal.map"), MapOptions.DEFAULTS.withVerifyReads(verifyReads));
            value = Arena.ofAuto().allocate(valueSize);
            dst = Arena.ofAuto().allocate(valueSize);
            for (int i = 0; i < batchKeys.length; i++) {
                batchKeys[i] = Arena.ofAuto().allocate(4);
            }
            batchDst = Arena.ofAuto().allocate((long) valueSize * MapBench.BATCH);
        }

        @Override
        int getBatch(int[] keys, int from, int n) {
            map.getAll(keysOf(keys, from, n), 0, lengths, batchDst, 0);
            int sum = 0;
            for (int i = 0; i < n; i++) {
                sum += (int) lengths[i];
            }
            return sum;
        }

        @Override
        void putBatch(int[] keys, int from, int n, byte[] v) {
            MemorySegment[] vs = n == batchValues.length ? batchValues : java.util.Arrays.copyOf(batchValues, n);
            MemorySegment.copy(v, 0, value, ValueLayout.JAVA_BYTE, 0, v.length);
            java.util.Arrays.fill(vs, value.asSlice(0, v.length));
            map.putAll(keysOf(keys, from, n), vs);
        }

        @Override
        void deleteBatch(int[] keys, int from, int n, byte[] v) {
            map.removeAll(keysOf(keys, from, n));
            putBatch(keys, from, n, v);
        }

        /** {@code keys[from, from + n)} in this store's reused key segments. */
        private MemorySegment[] keysOf(int[] keys, int from, int n) {
            MemorySegment[] ks = n == batchKeys.length ? batchKeys : java.util.Arrays.copyOf(batchKeys, n);
            for (int i = 0; i < n; i++) {
                ks[i].set(ValueLayout.JAVA_INT_UNALIGNED, 0, keys[from + i]);
            }
            return ks;
        }

        @Override
        void put(int k, byte[] v) {
            key.set(ValueLayout.JAVA_INT_UNALIGNED, 0, k);
            MemorySegment.copy(v, 0, value, ValueLayout.JAVA_BYTE, 0, v.length);
            map.put(key, value.asSlice(0, v.length));
        }

        @Override
        int get(int k) {
            key.set(ValueLayout.JAVA_INT_UNALIGNED, 0, k);
            return (int) map.get(key, dst);
        }

        @Override
        int lastValueByte() {
            return dst.get(ValueLayout.JAVA_BYTE, dst.byteSize() - 1);
        }

        @Override
        void remove(int k) {
            key.set(ValueLayout.JAVA_INT_UNALIGNED, 0, k);
            map.remove(key);
        }

        @Override
        long iterate() {
            long[] sum = new long[1];
            map.scan((k, v) -> {
                sum[0] += v.byteSize();
                return false;
            }, (k, v) -> { });
            return sum[0];
        }

        @Override
        public void close() throws IOException {
            map.close();
        }
    }

    /** A store that is a {@code java.util.Map}: the heap baseline, Chronicle Map and MapDB. */
    abstract static class MapBacked extends Store {
        private final Map<Integer, byte[]> map;
        private final boolean copies;

        /** {@code copies}: the map keeps the array itself, so it gets a copy (off-heap maps copy anyway). */
        MapBacked(Map<Integer, byte[]> map, boolean copies) {
            this.map = map;
            this.copies = copies;
        }

        @Override
        void put(int k, byte[] v) {
            map.put(k, copies ? v.clone() : v);
        }

        @Override
        int get(int k) {
            byte[] v = map.get(k);
            return v == null ? -1 : v.length;
        }

        @Override
        void remove(int k) {
            map.remove(k);
        }

        @Override
        long iterate() {
            long sum = 0;
            for (byte[] v : map.values()) {
                sum += v.length;
            }
            return sum;
        }
    }

    /** The heap baseline. */
    static final class Chm extends MapBacked {
        Chm() {
            super(new ConcurrentHashMap<>(), true);
        }

        @Override
        public void close() {
        }
    }

    static final class Chronicle extends MapBacked {
        private final ChronicleMap<Integer, byte[]> map;
        /** The last value read, which {@link ChronicleMap#getUsing} fills again when the next has its length. */
        private byte[] reused;

        Chronicle(Path dir, int entries, int valueSize) throws IOException {
            this(ChronicleMap.of(Integer.class, byte[].class).name("bench").entries(entries)
                    .averageValue(new byte[valueSize]).createPersistedTo(dir.resolve("chronicle.map").toFile()));
        }

        private Chronicle(ChronicleMap<Integer, byte[]> map) {
            super(map, false);
            this.map = map;
        }

        /**
         * Into a reused array, as ours reads into a reused buffer: {@code get} would allocate and
         * zero a new array per call (2 KiB per get at 2 KiB values, the heap's first touches then
         * showing as kernel time), work ours does not do.
         */
        @Override
        int get(int k) {
            byte[] v = map.getUsing(k, reused);
            if (v == null) {
                return -1;
            }
            reused = v;
            return v.length;
        }

        @Override
        int lastValueByte() {
            return reused[reused.length - 1];
        }

        @Override
        public void close() {
            map.close();
        }
    }

    /** MapDB's hash map on a memory-mapped file. */
    static final class MapDb extends MapBacked {
        private final DB db;

        MapDb(Path dir) {
            this(DBMaker.fileDB(dir.resolve("mapdb.db").toFile()).fileMmapEnable().make());
        }

        private MapDb(DB db) {
            super(db.hashMap("bench", Serializer.INTEGER, Serializer.BYTE_ARRAY).createOrOpen(), false);
            this.db = db;
        }

        @Override
        public void close() {
            db.close();
        }
    }

    /** LMDB through lmdbjava, MDB_NOSYNC (like ours: durable against crashes, sync on demand). */
    static final class Lmdb extends Store {
        private final Env<ByteBuffer> env;
        private final Dbi<ByteBuffer> db;
        private final ByteBuffer key = ByteBuffer.allocateDirect(4).order(ByteOrder.nativeOrder());
        private final ByteBuffer value;
        /** Where gets copy values to, reused. */
        private ByteBuffer out;
        private final Txn<ByteBuffer> read;

        Lmdb(Path dir, int entries, int valueSize) throws IOException {
            Path d = Files.createDirectories(dir.resolve("lmdb"));
            value = ByteBuffer.allocateDirect(valueSize);
            out = ByteBuffer.allocateDirect(valueSize);
            // B-tree pages hold ~2x the payload at worst; the map size is only an address-space reservation.
            env = Env.create().setMapSize(Math.max(1L << 30, entries * (3L * valueSize + 300))).setMaxDbs(1)
                    .open(d.toFile(), EnvFlags.MDB_NOSYNC);
            db = env.openDbi("bench", DbiFlags.MDB_CREATE);
            read = env.txnRead();
            read.reset();
        }

        private ByteBuffer key(int k) {
            key.clear();
            key.putInt(0, k);
            return key;
        }

        @Override
        void put(int k, byte[] v) {
            value.clear();
            value.put(v).flip();
            db.put(key(k), value);
        }

        @Override
        void putBatch(int[] keys, int from, int n, byte[] v) {
            value.clear();
            value.put(v).flip();
            try (Txn<ByteBuffer> txn = env.txnWrite()) {
                for (int i = 0; i < n; i++) {
                    db.put(txn, key(keys[from + i]), value);
                }
                txn.commit();
            }
        }

        /** The removes and the puts back in one write transaction. */
        @Override
        void deleteBatch(int[] keys, int from, int n, byte[] v) {
            value.clear();
            value.put(v).flip();
            try (Txn<ByteBuffer> txn = env.txnWrite()) {
                for (int i = 0; i < n; i++) {
                    db.delete(txn, key(keys[from + i]));
                }
                for (int i = 0; i < n; i++) {
                    db.put(txn, key(keys[from + i]), value);
                }
                txn.commit();
            }
        }

        /**
         * Copies the value out, as ours and Chronicle's get do: lmdbjava hands out a view of the
         * page, and a length read off it leaves the value's bytes untouched (and uncopied).
         */
        @Override
        int get(int k) {
            read.renew();
            try {
                ByteBuffer v = db.get(read, key(k));
                return v == null ? -1 : copyOut(v);
            } finally {
                read.reset();
            }
        }

        private int copyOut(ByteBuffer v) {
            int n = v.remaining();
            if (out.capacity() < n) {
                out = ByteBuffer.allocateDirect(n);
            }
            out.clear();
            out.put(v);
            return n;
        }

        @Override
        int getBatch(int[] keys, int from, int n) {
            read.renew();
            try {
                int sum = 0;
                for (int i = 0; i < n; i++) {
                    ByteBuffer v = db.get(read, key(keys[from + i]));
                    sum += v == null ? -1 : copyOut(v);
                }
                return sum;
            } finally {
                read.reset();
            }
        }

        @Override
        void remove(int k) {
            db.delete(key(k));
        }

        @Override
        long iterate() {
            long sum = 0;
            try (Txn<ByteBuffer> txn = env.txnRead(); var it = db.iterate(txn)) {
                for (var kv : it) {
                    sum += kv.val().remaining();
                }
            }
            return sum;
        }

        @Override
        public void close() {
            read.close();
            env.close();
        }
    }
}
