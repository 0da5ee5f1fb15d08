package dev.colossal.server;

import dev.colossal.rdb.RdbFile;
import java.util.ArrayList;
import java.util.List;

/**
 * SYNC and REPLCONF as far as {@code redis-cli --rdb FILE} needs them: SYNC answers one RDB
 * snapshot ({@link RdbFile}) of every database and the function libraries, which redis-server loads
 * and {@code colossal import-rdb} reads; then the connection is an ordinary one. This server does
 * not replicate: PSYNC, which replicas send, is refused saying so.
 *
 * <p>No fork here, so the snapshot is not of one instant: each key is read whole under its lock, as
 * DUMP reads it, while other clients go on writing. It is built in the heap: if what the keys take
 * in the maps (elements too), or the file as it grows, passes a quarter of it, SYNC refuses,
 * pointing at {@code colossal copy}.
 */
final class SyncCommands {

    private final ServerContext ctx;
    private final DumpCommands dumps;

    SyncCommands(ServerContext ctx, DumpCommands dumps) {
        this.ctx = ctx;
        this.dumps = dumps;
    }

    void register(CommandTable t) {
        t.add("sync", 1, List.of("admin", "noscript"), 0, 0, 0, this::sync);
        t.add("psync", -3, List.of("admin", "noscript"), 0, 0, 0, (c, a, r) -> r.error(
                "ERR this server does not replicate: SYNC (redis-cli --rdb FILE) sends a snapshot"));
        t.add("replconf", -1, List.of("admin", "noscript"), 0, 0, 0, SyncCommands::replconf);
    }

    /** REPLCONF's options a snapshot's client sends before SYNC are taken; the rest are Redis's errors. */
    private static void replconf(Client c, byte[][] a, Reply r) {
        if (a.length % 2 == 0) {
            r.error(Errors.SYNTAX);
            return;
        }
        for (int i = 1; i < a.length; i += 2) {
            if (!Args.is(a[i], "RDB-ONLY") && !Args.is(a[i], "LISTENING-PORT") && !Args.is(a[i], "IP-ADDRESS")
                    && !Args.is(a[i], "CAPA")) {
                r.error("ERR Unrecognized REPLCONF option: " + Errors.text(a[i]));
                return;
            }
        }
        r.ok();
    }

    private static String tooBig(long bytes, long room) {
        return "ERR a snapshot of " + (bytes >> 20) + " MB or more does not fit in a quarter of the server's heap ("
                + (room >> 20) + " MB): back the data directory up with 'colossal copy', or give the server more heap";
    }

    private void sync(Client c, byte[][] a, Reply r) {
        long used = ctx.dbs.usedBytes();
        long room = Runtime.getRuntime().maxMemory() / 4;
        if (used > room) {
            r.error(tooBig(used, room));
            return;
        }
        RdbFile file = new RdbFile(ServerContext.REDIS_VERSION, ctx.now(), used);
        for (FunctionLibraries.Library library : ctx.functions.all()) {
            file.function(library.code);
        }
        for (int db = 0; db < ctx.dbs.count(); db++) {
            KeyValueStore store = ctx.dbs.store(db);
            List<byte[]> keys = new ArrayList<>();
            List<Long> deadlines = new ArrayList<>();
            store.scanKeys(k -> true, (k, at) -> {
                keys.add(k);
                deadlines.add(at);
            });
            if (keys.isEmpty()) {
                continue;
            }
            file.database(db, keys.size(), deadlines.stream().filter(at -> at != StoredValue.NO_EXPIRY).count());
            for (int i = 0; i < keys.size(); i++) {
                byte[] payload = dumps.payload(store, keys.get(i));
                if (payload != null) {   // null: deleted since the scan
                    long at = deadlines.get(i);
                    file.key(keys.get(i), payload, at == StoredValue.NO_EXPIRY ? -1 : at);
                }
                if (file.size() > room) {   // the keys' estimate fell short
                    r.error(tooBig(file.size(), room));
                    return;
                }
            }
        }
        r.bulk(file.finish());
    }
}
