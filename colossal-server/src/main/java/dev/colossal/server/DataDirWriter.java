package dev.colossal.server;

import dev.colossal.map.BytesMap;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SortedMap;

/**
 * A data directory filled by a program other than the server ({@code colossal import-rdb}), with
 * the server's own files: the directory is claimed as a server claims it ({@code serve.lock}, so
 * that neither starts while the other writes), and each database is the map file a server opens
 * for it, values in {@link StoredValue} form, so that {@code colossal serve} serves what was put.
 */
public final class DataDirWriter implements AutoCloseable {

    private final Databases dbs;
    private final Path dir;
    /** The directory's function libraries, opened at the first one imported. */
    private FunctionLibraries functions;

    private DataDirWriter(Databases dbs, Path dir) {
        this.dbs = dbs;
        this.dir = dir;
    }

    /**
     * Claims {@code dir} (created if absent) and opens its databases. New map files get the bound
     * of the maps already there (a server must be started with that {@code --maxmemory}), none if
     * there are none.
     *
     * @param dir the data directory
     * @return the writer, which holds the directory until closed
     * @throws DataDirInUseException if a server serves the directory
     * @throws IOException if it cannot be created or a map opened
     */
    public static DataDirWriter open(Path dir) throws IOException {
        long bound = 0;
        if (Files.isDirectory(dir)) {
            SortedMap<Integer, Path> files = DatabaseFiles.list(dir);
            if (!files.isEmpty()) {
                try (BytesMap first = BytesMap.openReadOnly(files.get(files.firstKey()))) {
                    bound = first.options().maxBytes();
                }
            }
        }
        return new DataDirWriter(Databases.open(dir, ServerConfig.MAX_DATABASES, bound, System::currentTimeMillis), dir);
    }

    /**
     * @param db a database number
     * @return its keys now, expired ones not yet purged included; 0 if it has no file
     */
    public long keys(int db) {
        check(db);
        MapStore m = dbs.opened(db);
        return m == null ? 0 : m.size();
    }

    /**
     * Stores a string as SET would, replacing what the key held; the database's file is created
     * on its first key.
     *
     * @param db             the database, {@code 0 <= db <} {@link ServerConfig#MAX_DATABASES}
     * @param key            the key
     * @param value          the value
     * @param expireAtMillis its deadline in Unix milliseconds, 0 for none
     * @throws IllegalArgumentException if the value is larger than the server stores, or than the bound allows
     */
    public void set(int db, byte[] key, byte[] value, long expireAtMillis) {
        check(db);
        try {
            dbs.open(db).set(key, value, expireAtMillis);
        } catch (ReplyException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }

    /**
     * Stores a hash as RESTORE would, replacing what the key held.
     *
     * @param db              the database, {@code 0 <= db <} {@link ServerConfig#MAX_DATABASES}
     * @param key             the key
     * @param fieldsAndValues its fields and values, alternately, no field twice
     * @param expireAtMillis  its deadline in Unix milliseconds, 0 for none
     * @throws IllegalArgumentException if the hash is larger than the server stores, or than the bound allows
     */
    public void setHash(int db, byte[] key, java.util.List<byte[]> fieldsAndValues, long expireAtMillis) {
        check(db);
        try {
            KeyLoads.DEFAULTS.hash(dbs.open(db), key, fieldsAndValues, expireAtMillis);
        } catch (ReplyException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }

    /**
     * Stores a set as RESTORE would, replacing what the key held.
     *
     * @param db             the database, {@code 0 <= db <} {@link ServerConfig#MAX_DATABASES}
     * @param key            the key
     * @param members        its members, distinct
     * @param expireAtMillis its deadline in Unix milliseconds, 0 for none
     * @throws IllegalArgumentException if the set is larger than the server stores, or than the bound allows
     */
    public void setSet(int db, byte[] key, java.util.List<byte[]> members, long expireAtMillis) {
        check(db);
        try {
            KeyLoads.DEFAULTS.set(dbs.open(db), key, members, expireAtMillis);
        } catch (ReplyException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }

    /**
     * Stores a list as RESTORE would, replacing what the key held.
     *
     * @param db             the database, {@code 0 <= db <} {@link ServerConfig#MAX_DATABASES}
     * @param key            the key
     * @param elements       its elements, head first, at least one
     * @param expireAtMillis its deadline in Unix milliseconds, 0 for none
     * @throws IllegalArgumentException if the bound does not allow its header
     */
    public void setList(int db, byte[] key, java.util.List<byte[]> elements, long expireAtMillis) {
        check(db);
        try {
            KeyLoads.DEFAULTS.list(dbs.open(db), key, elements, expireAtMillis);
        } catch (ReplyException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }

    /**
     * Stores a stream, with its consumer groups, as RESTORE would, replacing what the key held.
     *
     * @param db             the database, {@code 0 <= db <} {@link ServerConfig#MAX_DATABASES}
     * @param key            the key
     * @param stream         its entries and counters, as the dump held them
     * @param expireAtMillis its deadline in Unix milliseconds, 0 for none
     * @throws IllegalArgumentException if the bound does not allow its header
     */
    public void setStream(int db, byte[] key, dev.colossal.rdb.RdbStreams.Stream stream, long expireAtMillis) {
        check(db);
        try {
            KeyLoads.DEFAULTS.stream(dbs.open(db), key, stream, expireAtMillis);
        } catch (ReplyException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }

    /**
     * Stores a sorted set as RESTORE would, replacing what the key held.
     *
     * @param db             the database, {@code 0 <= db <} {@link ServerConfig#MAX_DATABASES}
     * @param key            the key
     * @param zset           its members and scores, as the dump held them
     * @param expireAtMillis its deadline in Unix milliseconds, 0 for none
     * @throws IllegalArgumentException if the set is larger than the server stores, or than the bound allows
     */
    public void setZSet(int db, byte[] key, dev.colossal.rdb.RdbZSets.ZSet zset, long expireAtMillis) {
        check(db);
        try {
            KeyLoads.DEFAULTS.zset(dbs.open(db), key, zset, expireAtMillis);
        } catch (ReplyException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }

    /** @return keys evicted to keep within the directory's bound (see {@link #open}) */
    public long evictions() {
        return dbs.evictions();
    }

    /** @return database {@code db}'s map file, whether or not it exists */
    public Path file(int db) {
        return dbs.file(db);
    }

    private static void check(int db) {
        if (db < 0 || db >= ServerConfig.MAX_DATABASES) {
            throw new IllegalArgumentException("database " + db + " is beyond the " + ServerConfig.MAX_DATABASES
                    + " a server can have");
        }
    }

    /**
     * Adds a function library (FUNCTION LOAD's code) to the directory's {@code functions.rdb},
     * replacing one of the same name, as a server would load it.
     *
     * @return the library's name
     * @throws IllegalArgumentException with Redis's error if it does not load
     */
    public String loadFunction(byte[] code) {
        if (functions == null) {
            functions = FunctionLibraries.open(dir);
        }
        try {
            return functions.restore(code);
        } catch (ReplyException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }

    /** Forces the maps' data to the device, closes them and lets the directory go: a server may start on it now. */
    @Override
    public void close() throws IOException {
        dbs.sync();
        dbs.close();
    }
}
