package dev.colossal.cli;

import dev.colossal.rdb.RdbReader;
import dev.colossal.rdb.RdbStreams;
import dev.colossal.rdb.RdbZSets;
import dev.colossal.server.DataDirWriter;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.ToLongFunction;

/**
 * One pass of {@code import-rdb} over a dump: tallies what the keys are (strings, hashes, sets and
 * sorted sets per database, other types, expired) and, given a writer, stores them. The check pass has no writer:
 * its tally says which databases the load pass will write, before anything is written.
 */
final class RdbImporter implements RdbReader.Visitor {

    private final long now;
    private final DataDirWriter writer;
    private final Progress bar;
    private final long fileBytes;
    private int shownPermille = -1;
    /** Keys imported (or to import) per database: strings, hashes, sets and sorted sets. */
    final TreeMap<Integer, Long> keys = new TreeMap<>();
    /** Of those, hashes, every database together. */
    long hashes;
    /** Of those, lists, every database together. */
    long lists;
    /** Of those, sets, every database together. */
    long sets;
    /** Of those, sorted sets, every database together. */
    long zsets;
    /** Of those, streams, every database together. */
    long streams;
    /** Keys of other types passed over, by type. */
    final Map<String, Long> others = new TreeMap<>();
    long expired;
    /** Function libraries imported into the directory's functions.rdb. */
    long functions;
    /** Why each library that did not load was refused. */
    final List<String> refusedFunctions = new java.util.ArrayList<>();
    long bytes;
    String redisVersion;

    /**
     * @param now       the time keys are judged expired at: the same for both passes, so that they agree
     * @param writer    where strings go, or null for the check pass
     * @param bar       progress, in thousandths of the file
     * @param fileBytes the dump's size
     */
    RdbImporter(long now, DataDirWriter writer, Progress bar, long fileBytes) {
        this.now = now;
        this.writer = writer;
        this.bar = bar;
        this.fileBytes = Math.max(1, fileBytes);
    }

    @Override
    public void aux(String name, String value) {
        if (name.equals("redis-ver")) {
            redisVersion = value;
        }
    }

    @Override
    public void string(int db, byte[] key, byte[] value, long expireAtMillis, long offset) {
        keep(db, key, expireAtMillis, offset, w -> {
            w.set(db, key, value, expireAtMillis);
            return value.length;
        });
    }

    @Override
    public void hash(int db, byte[] key, List<byte[]> fieldsAndValues, long expireAtMillis, long offset) {
        if (keep(db, key, expireAtMillis, offset, w -> {
            w.setHash(db, key, fieldsAndValues, expireAtMillis);
            return fieldsAndValues.stream().mapToLong(b -> b.length).sum();
        })) {
            hashes++;
        }
    }

    @Override
    public void set(int db, byte[] key, List<byte[]> members, long expireAtMillis, long offset) {
        if (keep(db, key, expireAtMillis, offset, w -> {
            w.setSet(db, key, members, expireAtMillis);
            return members.stream().mapToLong(b -> b.length).sum();
        })) {
            sets++;
        }
    }

    @Override
    public void list(int db, byte[] key, List<byte[]> elements, long expireAtMillis, long offset) {
        if (keep(db, key, expireAtMillis, offset, w -> {
            w.setList(db, key, elements, expireAtMillis);
            return elements.stream().mapToLong(b -> b.length).sum();
        })) {
            lists++;
        }
    }

    @Override
    public void zset(int db, byte[] key, RdbZSets.ZSet zset, long expireAtMillis, long offset) {
        if (keep(db, key, expireAtMillis, offset, w -> {
            w.setZSet(db, key, zset, expireAtMillis);
            return zset.members().stream().mapToLong(b -> b.length + Double.BYTES).sum();
        })) {
            zsets++;
        }
    }

    @Override
    public void stream(int db, byte[] key, RdbStreams.Stream stream, long expireAtMillis, long offset) {
        if (keep(db, key, expireAtMillis, offset, w -> {
            w.setStream(db, key, stream, expireAtMillis);
            long n = 0;
            for (RdbStreams.Entry e : stream.entries()) {
                for (byte[] f : e.fields()) {
                    n += f.length;
                }
            }
            return n;
        })) {
            streams++;
        }
    }

    /**
     * Counts a key of a type that is imported, and stores it with {@code store} in the load pass.
     *
     * @param store writes the key and answers its value's bytes
     * @return false if the key had expired, and was dropped
     */
    private boolean keep(int db, byte[] key, long expireAtMillis, long offset, ToLongFunction<DataDirWriter> store) {
        boolean live = !isExpired(expireAtMillis);
        if (!live) {
            expired++;
        } else {
            if (writer != null) {
                try {
                    bytes += key.length + store.applyAsLong(writer);
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("key '" + RdbReader.printable(key) + "' of database " + db
                            + " could not be stored: " + e.getMessage(), e);
                }
            }
            keys.merge(db, 1L, Long::sum);
        }
        progress(offset);
        return live;
    }

    @Override
    public void other(int db, byte[] key, String type, long expireAtMillis, long offset) {
        if (isExpired(expireAtMillis)) {
            expired++;
        } else {
            others.merge(type, 1L, Long::sum);
        }
        progress(offset);
    }

    @Override
    public void function(byte[] code) {
        if (writer == null) {
            functions++; // the check pass: counted, loaded by the load pass
            return;
        }
        try {
            writer.loadFunction(code);
            functions++;
        } catch (IllegalArgumentException e) {
            refusedFunctions.add(e.getMessage());
        }
    }

    /** As Redis loads a dump: a deadline already past drops the key. */
    private boolean isExpired(long expireAtMillis) {
        return expireAtMillis != 0 && expireAtMillis <= now;
    }

    private void progress(long offset) {
        int permille = (int) (offset * 1000 / fileBytes);
        if (permille != shownPermille) {
            shownPermille = permille;
            bar.at(permille);
        }
    }

    /** Clears the progress bar: the pass is over, however it ended. */
    void done() {
        bar.done();
    }

    /** @return the keys imported, every database together */
    long imported() {
        return keys.values().stream().mapToLong(Long::longValue).sum();
    }
}
