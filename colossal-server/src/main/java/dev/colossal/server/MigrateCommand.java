package dev.colossal.server;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.locks.Lock;

/**
 * MIGRATE host port key|"" db timeout [COPY] [REPLACE] [AUTH pw | AUTH2 user pw] [KEYS key...]:
 * moves keys to another Redis-compatible server as Redis does, by sending it RESTORE with each
 * key's DUMP payload and time to live, then deleting the keys here (unless COPY) once the target
 * said OK. The keys' locks are held from the dump to the delete, so no write lands in between
 * and is lost; like Redis's, the call waits for the target (at most {@code timeout} ms per step).
 *
 * <p>Connections are kept for reuse as Redis keeps them ({@link MigrateSockets}), and that shows:
 * a target's login and database outlive the call, so a later MIGRATE without AUTH to the same
 * target is logged in already, as it is from a Redis.
 */
final class MigrateCommand {

    private final ServerContext ctx;
    private final DumpCommands dumps;

    MigrateCommand(ServerContext ctx, DumpCommands dumps) {
        this.ctx = ctx;
        this.dumps = dumps;
    }

    void register(CommandTable t) {
        t.add("migrate", -6, List.of("write", "movablekeys"), 3, 3, 1, this::migrate);
    }

    private void migrate(Client c, byte[][] a, Reply r) {
        boolean copy = false;
        boolean replace = false;
        byte[] user = null;
        byte[] password = null;
        int first = 3;
        int count = 1;
        for (int j = 6; j < a.length; j++) {
            int more = a.length - 1 - j;
            if (Args.is(a[j], "COPY")) {
                copy = true;
            } else if (Args.is(a[j], "REPLACE")) {
                replace = true;
            } else if (Args.is(a[j], "AUTH") && more >= 1) {
                password = a[++j];
            } else if (Args.is(a[j], "AUTH2") && more >= 2) {
                user = a[++j];
                password = a[++j];
            } else if (Args.is(a[j], "KEYS")) {
                if (a[3].length != 0) {
                    r.error("ERR When using MIGRATE KEYS option, the key argument must be set to the empty string");
                    return;
                }
                first = j + 1;
                count = a.length - j - 1;
                break;
            } else {
                r.error(Errors.SYNTAX);
                return;
            }
        }
        OptionalLong timeout = Args.toLong(a[5]);
        OptionalLong db = timeout.isEmpty() ? timeout : Args.toLong(a[4]);
        if (db.isEmpty()) {
            r.error(Errors.NOT_INTEGER);
            return;
        }
        long millis = timeout.getAsLong() <= 0 ? 1000 : timeout.getAsLong();
        byte[][] keys = java.util.Arrays.copyOfRange(a, first, first + count);
        KeyValueStore store = ctx.db(c);
        Lock[] locks = store.locks(keys);
        StringCommands.lockAll(locks);
        try {
            List<byte[]> present = new ArrayList<>();
            for (byte[] k : keys) {
                if (store.get(k) != null) {
                    present.add(k);
                }
            }
            if (present.isEmpty()) {
                r.simple("NOKEY"); // nothing to move, which a caller sees as no error (the key may just have expired)
                return;
            }
            send(c, a, store, present, new Target(user, password, db.getAsLong(), millis, replace, copy), r);
        } finally {
            StringCommands.unlockAll(locks);
        }
    }

    /** Where and how to move the keys. */
    private record Target(byte[] user, byte[] password, long db, long millis, boolean replace, boolean copy) {
    }

    private void send(Client c, byte[][] a, KeyValueStore store, List<byte[]> keys, Target t, Reply r) {
        String host = Errors.text(a[1]);
        int port = Args.atoi(a[2]);
        MigrateSockets.Cached s;
        try {
            s = ctx.migrateSockets.take(host, port, t.millis);
        } catch (java.net.ConnectException refused) {
            // Redis's connect does not wait for the answer: a refused one fails at the first write
            r.error("IOERR error or timeout writing to target instance");
            return;
        } catch (IOException | IllegalArgumentException e) {
            r.error("IOERR error or timeout connecting to the client");
            return;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        boolean auth = t.password != null;
        if (auth) {
            command(out, t.user == null ? new byte[][] {Args.bytes("AUTH"), t.password}
                    : new byte[][] {Args.bytes("AUTH"), t.user, t.password});
        }
        boolean select = s.lastDb != t.db;
        if (select) {
            command(out, new byte[][] {Args.bytes("SELECT"), Args.bytes(Long.toString(t.db))});
        }
        List<byte[]> sent = new ArrayList<>();
        for (byte[] key : keys) {
            KeyValueStore.Entry e = store.get(key);
            byte[] payload = e == null ? null : dumps.payload(store, key);
            if (payload == null) {
                continue; // expired since it was looked up
            }
            long ttl = 0;
            if (e.expireAtMillis() != StoredValue.NO_EXPIRY) {
                ttl = Math.max(1, e.expireAtMillis() - ctx.now());
            }
            List<byte[]> restore = new ArrayList<>(List.of(Args.bytes("RESTORE"), key, Args.bytes(Long.toString(ttl)), payload));
            if (t.replace) {
                restore.add(Args.bytes("REPLACE"));
            }
            command(out, restore.toArray(byte[][]::new));
            sent.add(key);
        }
        String stage = "writing";
        try {
            s.socket.setSoTimeout((int) Math.min(Integer.MAX_VALUE, t.millis));
            OutputStream o = s.socket.getOutputStream();
            o.write(out.toByteArray());
            o.flush();
            stage = "reading";
            String authReply = auth ? line(s.in) : "+OK";
            String selectReply = select ? line(s.in) : "+OK";
            s.lastDb = t.db;
            String failure = null;
            for (byte[] key : sent) {
                String reply = line(s.in);
                String error = authReply.startsWith("-") ? authReply : selectReply.startsWith("-") ? selectReply
                        : reply.startsWith("-") ? reply : null;
                if (error != null) {
                    failure = failure != null ? failure : error.substring(1);
                    s.lastDb = -1; // the target may not be in the database asked for
                } else if (!t.copy && store.delete(key)) {
                    ctx.events.fire(KeyspaceEvents.GENERIC, "del", store, key);
                    ctx.waits.ready(c.db, key);
                }
            }
            ctx.migrateSockets.give(host, port, s);
            if (failure != null) {
                r.error("ERR Target instance replied with error: " + failure);
            } else {
                r.ok();
            }
        } catch (IOException e) {
            s.close();
            r.error("IOERR error or timeout " + stage + " to target instance");
        }
    }

    private static void command(ByteArrayOutputStream out, byte[][] args) {
        out.writeBytes(Args.bytes("*" + args.length + "\r\n"));
        for (byte[] x : args) {
            out.writeBytes(Args.bytes("$" + x.length + "\r\n"));
            out.writeBytes(x);
            out.writeBytes(new byte[] {'\r', '\n'});
        }
    }

    /** @return one line of the target's reply, without its CRLF: every reply MIGRATE waits for is one line */
    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (int ch = in.read(); ch != '\n'; ch = in.read()) {
            if (ch < 0) {
                throw new IOException("target closed the connection");
            }
            if (ch != '\r') {
                b.write(ch);
            }
        }
        return b.toString(java.nio.charset.StandardCharsets.UTF_8);
    }
}
