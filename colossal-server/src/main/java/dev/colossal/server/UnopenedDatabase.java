package dev.colossal.server;

import dev.colossal.map.MapCorruptedException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.concurrent.locks.Lock;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;

/**
 * A database that has no map file yet: it reads as empty, and its first write creates the file
 * ({@link Databases#open}) and goes there, so an unused database costs no file, no mapping and
 * no sweeps. A command that took this from {@link Databases#store} just before another's write
 * created the file finds the file through it: every call looks at what the slot holds now.
 */
final class UnopenedDatabase implements KeyValueStore {

    private final Databases dbs;
    private final int db;

    UnopenedDatabase(Databases dbs, int db) {
        this.dbs = dbs;
        this.db = db;
    }

    /** @return the database's store now, or null while it still has no file */
    private KeyValueStore opened() {
        KeyValueStore s = dbs.store(db);
        return s == this ? null : s;
    }

    /** @return the database's store, its file created if it has none */
    private KeyValueStore forWrite() {
        return dbs.open(db);
    }

    @Override
    public Entry get(byte[] key) {
        KeyValueStore s = opened();
        return s == null ? null : s.get(key);
    }

    @Override
    public Entry raw(byte[] key) {
        KeyValueStore s = opened();
        return s == null ? null : s.raw(key);
    }

    @Override
    public long copyStored(MemorySegment key, MemorySegment dst, long at) {
        KeyValueStore s = opened();
        return s == null ? -1 : s.copyStored(key, dst, at);
    }

    @Override
    public int prefetch(MemorySegment[] keys, int from) {
        return keys.length; // nothing to read ahead in no file
    }

    @Override
    public long largestValue(long keyLength, long expireAtMillis) {
        // Every database's file is made with the same options, so any open one answers for this one.
        return dbs.anyOpen().largestValue(keyLength, expireAtMillis);
    }

    @Override
    public void checkFits(long keyLength, long valueLength, long expireAtMillis) {
        dbs.anyOpen().checkFits(keyLength, valueLength, expireAtMillis);
    }

    @Override
    public long evictions() {
        return 0;
    }

    @Override
    public void set(byte[] key, byte[] value, int from, int length, long expireAtMillis, byte type) {
        forWrite().set(key, value, from, length, expireAtMillis, type);
    }

    @Override
    public void setInPlace(MemorySegment key, MemorySegment buf, long valueAt, long valueLength, long expireAtMillis, byte type) {
        forWrite().setInPlace(key, buf, valueAt, valueLength, expireAtMillis, type);
    }

    @Override
    public boolean delete(byte[] key) {
        KeyValueStore s = opened();
        return s != null && s.delete(key);
    }

    @Override
    public boolean deleteHeader(byte[] key) {
        KeyValueStore s = opened();
        return s != null && s.deleteHeader(key);
    }

    @Override
    public long size() {
        KeyValueStore s = opened();
        return s == null ? 0 : s.size();
    }

    @Override
    public long usedBytes() {
        KeyValueStore s = opened();
        return s == null ? 0 : s.usedBytes();
    }

    @Override
    public void clear() {
        KeyValueStore s = opened();
        if (s != null) {
            s.clear();
        }
    }

    @Override
    public void scanKeys(Predicate<byte[]> filter, BiConsumer<byte[], Long> action) {
        KeyValueStore s = opened();
        if (s != null) {
            s.scanKeys(filter, action);
        }
    }

    @Override
    public long scanKeys(long cursor, long count, Predicate<byte[]> filter, BiConsumer<byte[], Long> action) {
        KeyValueStore s = opened();
        return s == null ? 0 : s.scanKeys(cursor, count, filter, action);
    }

    /** @return the position in the file once there is one; until then past every cursor, as no key is here (a snapshot keeps any write of it) */
    @Override
    public long scanPosition(byte[] key) {
        KeyValueStore s = opened();
        return s == null ? Long.MAX_VALUE - 1 : s.scanPosition(key);
    }

    @Override
    public long scanEntries(long cursor, long count, EntryAction action) {
        KeyValueStore s = opened();
        return s == null ? 0 : s.scanEntries(cursor, count, action);
    }

    @Override
    public byte[] randomKey() {
        KeyValueStore s = opened();
        return s == null ? null : s.randomKey();
    }

    @Override
    public Lock lock(byte[] key) {
        return dbs.locks().lock(key);
    }

    @Override
    public Lock lock(MemorySegment key) {
        return dbs.locks().lock(key);
    }

    @Override
    public Lock[] locks(byte[]... keys) {
        return dbs.locks().locks(keys);
    }

    @Override
    public Sweep purgeExpired(BooleanSupplier keepGoing) {
        return new Sweep(0, 0, 0, Long.MAX_VALUE, true, false, 0);
    }

    @Override
    public void watch(ExpirySweeper sweeper) {
        // the file, once made, is watched by Databases
    }

    @Override
    public void damaged(MapCorruptedException e) {
        KeyValueStore s = opened();
        if (s != null) {
            s.damaged(e);
        }
    }

    @Override
    public void noRoom(UncheckedIOException e) {
        // The file could not be created: the write's error reply and the next write say so.
        KeyValueStore s = opened();
        if (s != null) {
            s.noRoom(e);
        }
    }

    @Override
    public long noRoomRefusals() {
        return 0;
    }

    @Override
    public Path path() {
        return dbs.file(db);
    }

    @Override
    public long fileBytes() {
        return 0;
    }

    @Override
    public long diskFreeBytes() {
        return dbs.anyOpen().diskFreeBytes();
    }

    @Override
    public long repairs() {
        return 0;
    }

    @Override
    public ListElements elements(boolean create) {
        if (create) {
            return dbs.open(db).elements(true);
        }
        KeyValueStore s = opened();
        return s == null ? null : s.elements(false);
    }

    @Override
    public void sync() {
        // no file, nothing to sync
    }

    @Override
    public void close() {
        // no file to close
    }
}
