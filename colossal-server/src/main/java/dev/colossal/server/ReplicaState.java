package dev.colossal.server;

/**
 * Whether this server follows a master (REPLICAOF host port) and how its link is: what INFO
 * replication, ROLE, the READONLY refusal and the expiry sweeper ask. The link itself
 * ({@link MasterLink}) writes the state from its thread; commands read it from theirs, so each
 * field is volatile and a reader may see one field of a change before the next (INFO is a snapshot
 * of nothing in Redis either).
 */
final class ReplicaState {

    /** The link's phases, as ROLE names them. */
    enum Phase {
        /** Waiting to connect (the first time, or after the link dropped). */
        CONNECT("connect"),
        /** Connecting to the master. */
        CONNECTING("connecting"),
        /** Connected, in the handshake (PING, AUTH, REPLCONF, PSYNC). */
        HANDSHAKE("handshake"),
        /** Receiving the master's snapshot, then loading it. */
        SYNC("sync"),
        /** Following the master's command stream. */
        CONNECTED("connected");

        final String roleName;

        Phase(String roleName) {
            this.roleName = roleName;
        }
    }

    /**
     * Bound while a master's command runs on its link's thread: a key past its deadline is still
     * there for it, as Redis's replicas let their master see it, since the master has not expired
     * it yet (its DEL is on the way, after this command).
     */
    static final ScopedValue<Boolean> OBEYED = ScopedValue.newInstance();

    /** The link running now, or null: a master. Replaced only under this object's monitor. */
    private volatile MasterLink link;
    /** CONFIG SET masteruser / masterauth, or serve's flags: the AUTH the link sends, none if the password is null. */
    volatile String masterUser;
    volatile String masterAuth;
    /** replica-priority, in INFO for Sentinel: the lowest above 0 is promoted first, 0 never. */
    volatile int priority = 100;
    /** replica-announced: whether Sentinel lists this replica to its clients (INFO's replica_announced). */
    volatile boolean announced = true;
    /**
     * replica-announce-ip and -port: the address the link gives its master (REPLCONF ip-address and
     * listening-port), which lists it to Sentinel, for a replica behind NAT or in a container; "" and
     * 0: the connection's own address and the port served on.
     */
    volatile String announceIp = "";
    volatile int announcePort;
    volatile Phase phase = Phase.CONNECT;
    /**
     * A full sync is emptying the databases and loading the master's snapshot: clients' commands
     * that Redis refuses while it loads get its LOADING error, so no one reads half a snapshot.
     */
    volatile boolean loading;
    /** The master's replication id, learned at the last full sync or partial resync; "?" before any. */
    volatile String replid = "?";
    /** The bytes of the master's stream applied: its offset, -1 before a full sync gave one. */
    volatile long offset = -1;
    /** The database the master's stream is in at {@link #offset}: where its next command runs unless it SELECTs. */
    volatile int streamDb;
    /** Redis's testing setting {@code key-load-delay}: microseconds a full sync's load waits after each key. 0: none. */
    volatile long keyLoadDelayMicros;
    /** When the master last sent something (epoch ms), for master_last_io_seconds_ago. */
    volatile long lastIoMillis;
    /** When the link went down (epoch ms), for master_link_down_since_seconds; 0 when up or never up. */
    volatile long downSinceMillis;

    /** @return the link, or null if this server is a master */
    MasterLink link() {
        return link;
    }

    /** @return whether this server follows a master: writes from clients are refused and keys wait for the master's DEL */
    boolean following() {
        return link != null;
    }

    /**
     * Replaces the link: the old one (if any) is stopped before, so two links never apply commands.
     *
     * @param next the link to start, or null to become a master (REPLICAOF NO ONE)
     * @return the link stopped, or null if there was none
     */
    synchronized MasterLink replace(MasterLink next) {
        return replace(next, null, true);
    }

    /**
     * {@link #replace(MasterLink)}, the new link resuming from where the data stands in its
     * master's stream if {@code from} says it: its first PSYNC asks for the byte after it.
     *
     * @param from  the master's stream id and the offset the data holds, or null for a full sync
     * @param start whether to start the link now; else its owner starts it (once the port it
     *              names to the master is bound), and meanwhile the server already refuses writes
     */
    synchronized MasterLink replace(MasterLink next, ReplicationCheckpoint from, boolean start) {
        MasterLink was = link;
        if (was != null) {
            was.stop();
        }
        phase = Phase.CONNECT;
        loading = false;
        replid = from == null ? "?" : from.replid();
        offset = from == null ? -1 : from.offset();
        streamDb = from == null ? 0 : from.streamDb();
        lastIoMillis = 0;
        downSinceMillis = 0;
        link = next;
        if (next != null && start) {
            next.start();
        }
        return was;
    }

    /**
     * Stops the link for good, as the server stops, while it still counts as following (clients'
     * writes stay refused to the end).
     *
     * @return where the data now stands in the master's stream, or null if it stands nowhere
     *     (a master, or a replica before or inside a full sync)
     */
    synchronized ReplicationCheckpoint halt() {
        MasterLink l = link;
        if (l == null) {
            return null;
        }
        l.stop(); // its thread has ended: the offset counts every command it applied, and no other
        String id = replid;
        long off = offset;
        return id.equals("?") || off < 0 ? null : new ReplicationCheckpoint(id, off, streamDb);
    }

    /**
     * INFO replication's lines for a replica, Redis 7.0's fields in its order, from {@code role}
     * up to {@code replica_announced}; empty for a master (whose lines are another's to write).
     */
    String infoLines(long nowMillis) {
        MasterLink l = link;
        if (l == null) {
            return "";
        }
        Phase p = phase;
        long off = Math.max(0, offset);
        StringBuilder sb = new StringBuilder("role:slave\r\n");
        sb.append("master_host:").append(l.host).append("\r\nmaster_port:").append(l.port)
                .append("\r\nmaster_link_status:").append(p == Phase.CONNECTED ? "up" : "down")
                .append("\r\nmaster_last_io_seconds_ago:")
                .append(lastIoMillis == 0 ? -1 : (nowMillis - lastIoMillis) / 1000)
                .append("\r\nmaster_sync_in_progress:").append(p == Phase.SYNC ? 1 : 0)
                .append("\r\nslave_read_repl_offset:").append(off)
                .append("\r\nslave_repl_offset:").append(off).append("\r\n");
        if (p != Phase.CONNECTED) {
            long since = downSinceMillis;
            sb.append("master_link_down_since_seconds:").append(since == 0 ? -1 : (nowMillis - since) / 1000).append("\r\n");
        }
        sb.append("slave_priority:").append(priority).append("\r\nslave_read_only:1\r\nreplica_announced:")
                .append(announced ? 1 : 0).append("\r\n");
        return sb.toString();
    }

    /** ROLE of a replica: {@code slave host port state offset}. */
    void role(Reply r) {
        MasterLink l = link;
        r.array(5);
        r.bulk("slave");
        r.bulk(l.host);
        r.integer(l.port);
        r.bulk(phase.roleName);
        r.integer(offset);
    }
}
