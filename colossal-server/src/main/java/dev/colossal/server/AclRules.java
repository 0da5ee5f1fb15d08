package dev.colossal.server;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * What one ACL user may do, as ACL SETUSER's rules build it: on or off, passwords (SHA-256 hex, as
 * Redis keeps them), the commands allowed (a bit per {@link AclCatalog} entry), key and channel
 * patterns.
 *
 * <p>A published instance is never changed again: SETUSER applies its rules to a {@link #copy},
 * and only if every rule is valid does the copy replace the user's rules, so a connection on
 * another loop reads either the old rules or the new, whole.
 */
final class AclRules {

    /** A key pattern and whether it lets a command read ({@link KeySpec#READ}) or write the keys it matches. */
    record KeyPattern(byte[] pattern, int access) {
        String describe() {
            String p = new String(pattern, StandardCharsets.ISO_8859_1);
            return access == (KeySpec.READ | KeySpec.WRITE) ? "~" + p
                    : access == KeySpec.READ ? "%R~" + p : "%W~" + p;
        }
    }

    private static final AclCatalog CATALOG = AclCatalog.REDIS;

    boolean on;
    boolean nopass;
    /** 0 neither, 1 sanitize-payload, 2 skip-sanitize-payload: what RESTORE checks (shown, not acted on). */
    int sanitize;
    final List<String> passwords = new ArrayList<>();
    long[] allowed = new long[(CATALOG.size() + 63) / 64];
    /** Every bit set since +@all and none cleared: the check may skip the bits. */
    boolean allCommands;
    /** +@all was the last whole-set rule (not -@all): ACL LIST describes from +@all. */
    boolean future;
    /** Deprecated +cmd|arg rules: first arguments allowed of a command otherwise denied, by command id. */
    final Map<Integer, List<String>> firstArgs = new HashMap<>();
    boolean allKeys;
    final List<KeyPattern> keys = new ArrayList<>();
    boolean allChannels;
    final List<byte[]> channels = new ArrayList<>();

    /** A user Redis's ACL SETUSER creates: off, no password, no command, key or channel. */
    AclRules() {
    }

    /** @return the rules of the default user: on, every command, key and channel, and {@code password} (nopass if null) */
    static AclRules everything(String password) {
        AclRules r = new AclRules();
        for (String op : List.of("on", "+@all", "~*", "&*")) {
            r.apply(Args.bytes(op));
        }
        r.apply(password == null ? Args.bytes("nopass") : Args.bytes(">" + password));
        return r;
    }

    AclRules copy() {
        AclRules r = new AclRules();
        r.on = on;
        r.nopass = nopass;
        r.sanitize = sanitize;
        r.passwords.addAll(passwords);
        r.allowed = allowed.clone();
        r.allCommands = allCommands;
        r.future = future;
        firstArgs.forEach((k, v) -> r.firstArgs.put(k, new ArrayList<>(v)));
        r.allKeys = allKeys;
        r.keys.addAll(keys);
        r.allChannels = allChannels;
        r.channels.addAll(channels);
        return r;
    }

    /** @return whether nothing is checked for this user: every command, key and channel */
    boolean unrestricted() {
        return allCommands && allKeys && allChannels;
    }

    boolean allows(int id) {
        return (allowed[id >>> 6] & 1L << id) != 0;
    }

    private void set(int id, boolean allow) {
        if (allow) {
            allowed[id >>> 6] |= 1L << id;
        } else {
            allowed[id >>> 6] &= ~(1L << id);
            allCommands = false;
        }
    }

    /** Allows or denies a command, and with a container all its subcommands. */
    void change(AclCatalog.Entry e, boolean allow) {
        set(e.id(), allow);
        firstArgs.remove(e.id());
        for (int child : e.children()) {
            set(child, allow);
        }
    }

    void category(long bit, boolean allow) {
        for (AclCatalog.Entry e : CATALOG.all()) {
            if ((e.categories() & bit) != 0) {
                change(e, allow);
            }
        }
    }

    void all(boolean allow) {
        java.util.Arrays.fill(allowed, allow ? -1L : 0L);
        allCommands = allow;
        future = allow;
        firstArgs.clear();
    }

    /**
     * Applies one SETUSER rule.
     *
     * @return null, or why the rule is refused (Redis's words for it)
     */
    String apply(byte[] op) {
        String s = new String(op, StandardCharsets.ISO_8859_1);
        String lower = s.toLowerCase(java.util.Locale.ROOT);
        if (s.isEmpty()) {
            return null;
        }
        switch (lower) {
            case "on" -> on = true;
            case "off" -> on = false;
            case "nopass" -> {
                nopass = true;
                passwords.clear();
            }
            case "resetpass" -> {
                nopass = false;
                passwords.clear();
            }
            case "sanitize-payload" -> sanitize = 1;
            case "skip-sanitize-payload" -> sanitize = 2;
            case "allkeys", "~*" -> {
                allKeys = true;
                keys.clear();
            }
            case "resetkeys" -> {
                allKeys = false;
                keys.clear();
            }
            case "allchannels", "&*" -> {
                allChannels = true;
                channels.clear();
            }
            case "resetchannels" -> {
                allChannels = false;
                channels.clear();
            }
            case "allcommands", "+@all" -> all(true);
            case "nocommands", "-@all" -> all(false);
            case "reset" -> {
                for (String r : List.of("resetpass", "resetkeys", "resetchannels", "off", "sanitize-payload", "-@all")) {
                    apply(Args.bytes(r));
                }
            }
            case "clearselectors" -> {
                // no selectors are kept here: nothing to clear
            }
            default -> {
                return applyWithArgument(s);
            }
        }
        return null;
    }

    private String applyWithArgument(String s) {
        char k = s.charAt(0);
        if (k == '>' || k == '#' || k == '<' || k == '!') {
            String hash;
            if (k == '>' || k == '<') {
                hash = sha256(s.substring(1).getBytes(StandardCharsets.ISO_8859_1));
            } else if (!validHash(s.substring(1))) {
                return "The password hash must be exactly 64 characters and contain only lowercase hexadecimal characters";
            } else {
                hash = s.substring(1);
            }
            if (k == '>' || k == '#') {
                if (!passwords.contains(hash)) {
                    passwords.add(hash);
                }
                nopass = false;
            } else if (!passwords.remove(hash)) {
                return "The password you are trying to remove from the user does not exist";
            }
            return null;
        }
        if (k == '(' && s.endsWith(")")) {
            return "Selectors are not supported by this server: give the user its rules without parentheses";
        }
        if (k == '~' || k == '%') {
            return keyPattern(s);
        }
        if (k == '&') {
            if (allChannels) {
                return "Adding a pattern after the * pattern (or the 'allchannels' flag) is not valid and does not have"
                        + " any effect. Try 'resetchannels' to start with an empty list of channels";
            }
            if (hasSpace(s, 1)) {
                return "Syntax error";
            }
            byte[] p = s.substring(1).getBytes(StandardCharsets.ISO_8859_1);
            if (channels.stream().noneMatch(c -> java.util.Arrays.equals(c, p))) {
                channels.add(p);
            }
            allChannels = false;
            return null;
        }
        if ((k == '+' || k == '-') && s.length() > 1 && s.charAt(1) == '@') {
            long bit = AclCatalog.category(s.substring(2).toLowerCase(java.util.Locale.ROOT));
            if (bit == 0) {
                return "Unknown command or category name in ACL";
            }
            category(bit, k == '+');
            return null;
        }
        if (k == '+' || k == '-') {
            return command(s.substring(1).toLowerCase(java.util.Locale.ROOT), s.substring(1), k == '+');
        }
        return "Syntax error";
    }

    private String command(String name, String given, boolean allow) {
        int bar = name.lastIndexOf('|');
        if (!allow || bar < 0) {
            AclCatalog.Entry e = CATALOG.find(name);
            if (e == null) {
                return "Unknown command or category name in ACL";
            }
            change(e, allow);
            return null;
        }
        AclCatalog.Entry cmd = CATALOG.find(name.substring(0, bar));
        if (cmd == null) {
            return "Unknown command or category name in ACL";
        }
        if (cmd.parent() >= 0) {
            return "Allowing first-arg of a subcommand is not supported";
        }
        if (bar == name.length() - 1) {
            return "Syntax error";
        }
        if (!cmd.children().isEmpty()) {
            AclCatalog.Entry sub = CATALOG.find(name);
            if (sub == null) {
                return "Unknown command or category name in ACL";
            }
            change(sub, true);
            return null;
        }
        String arg = given.substring(bar + 1);
        List<String> args = firstArgs.computeIfAbsent(cmd.id(), x -> new ArrayList<>());
        if (args.stream().noneMatch(arg::equalsIgnoreCase)) {
            args.add(arg);
        }
        return null;
    }

    private String keyPattern(String s) {
        if (allKeys) {
            return "Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and does not have any"
                    + " effect. Try 'resetkeys' to start with an empty list of patterns";
        }
        int access = 0;
        int at = 1;
        if (s.charAt(0) == '%') {
            for (; at < s.length(); at++) {
                char c = Character.toUpperCase(s.charAt(at));
                if (c == 'R' && (access & KeySpec.READ) == 0) {
                    access |= KeySpec.READ;
                } else if (c == 'W' && (access & KeySpec.WRITE) == 0) {
                    access |= KeySpec.WRITE;
                } else if (s.charAt(at) == '~') {
                    at++;
                    break;
                } else {
                    return "Syntax error";
                }
            }
        } else {
            access = KeySpec.READ | KeySpec.WRITE;
        }
        if (hasSpace(s, at)) {
            return "Syntax error";
        }
        byte[] p = s.substring(at).getBytes(StandardCharsets.ISO_8859_1);
        for (int i = 0; i < keys.size(); i++) {
            if (java.util.Arrays.equals(keys.get(i).pattern(), p)) {
                keys.set(i, new KeyPattern(p, keys.get(i).access() | access));
                return null;
            }
        }
        keys.add(new KeyPattern(p, access));
        allKeys = false;
        return null;
    }

    private static boolean hasSpace(String s, int from) {
        for (int i = from; i < s.length(); i++) {
            if (Character.isWhitespace(s.charAt(i)) || s.charAt(i) == 0) {
                return true;
            }
        }
        return false;
    }

    private static boolean validHash(String h) {
        if (h.length() != 64) {
            return false;
        }
        for (int i = 0; i < h.length(); i++) {
            char c = h.charAt(i);
            if (!(c >= '0' && c <= '9' || c >= 'a' && c <= 'f')) {
                return false;
            }
        }
        return true;
    }

    static String sha256(byte[] password) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(password));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    /** @return whether {@code password} is one of this user's (or the user needs none) */
    boolean accepts(byte[] password) {
        if (nopass) {
            return true;
        }
        byte[] hash = Args.bytes(sha256(password));
        boolean ok = false;
        for (String p : passwords) {
            ok |= MessageDigest.isEqual(Args.bytes(p), hash);
        }
        return ok;
    }
}
