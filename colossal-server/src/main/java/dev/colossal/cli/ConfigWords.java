package dev.colossal.cli;

import java.util.ArrayList;
import java.util.List;

/**
 * The words of a redis.conf line as redis-server splits them: by spaces, a word in double quotes
 * taking spaces and the escapes {@code \"}, {@code \\}, {@code \n}, {@code \r}, {@code \t},
 * {@code \b}, {@code \a} and {@code \xHH}, a word in single quotes taking spaces and {@code \'}.
 * A closing quote must end the word.
 */
final class ConfigWords {

    private ConfigWords() {}

    /**
     * @param where {@code FILE:LINE}, for the error
     * @return the words, at least one for a line that is not blank
     * @throws IllegalArgumentException naming the line, for a quote not closed or not followed by a space
     */
    static List<String> split(String line, String where) {
        List<String> words = new ArrayList<>();
        int i = 0;
        int n = line.length();
        while (true) {
            while (i < n && Character.isWhitespace(line.charAt(i))) {
                i++;
            }
            if (i == n) {
                return words;
            }
            char quote = line.charAt(i) == '"' || line.charAt(i) == '\'' ? line.charAt(i) : 0;
            StringBuilder w = new StringBuilder();
            i += quote == 0 ? 0 : 1;
            while (true) {
                if (i == n) {
                    if (quote != 0) {
                        throw unbalanced(where, line);
                    }
                    break;
                }
                char c = line.charAt(i);
                if (quote == 0 && Character.isWhitespace(c)) {
                    break;
                }
                if (c == quote) {
                    if (i + 1 < n && !Character.isWhitespace(line.charAt(i + 1))) {
                        throw unbalanced(where, line); // Redis wants a space after the closing quote
                    }
                    i++;
                    break;
                }
                if (c == '\\' && i + 1 < n && quote != 0) {
                    i = escape(line, i, quote, w);
                    continue;
                }
                w.append(c);
                i++;
            }
            words.add(w.toString());
        }
    }

    /** Appends the escape at {@code line[i]} (a backslash) to {@code w}; @return where the line goes on */
    private static int escape(String line, int i, char quote, StringBuilder w) {
        char e = line.charAt(i + 1);
        if (quote == '\'') {
            w.append(e == '\'' ? "'" : "\\" + e);
            return i + 2;
        }
        if (e == 'x' && i + 3 < line.length() && hex(line.charAt(i + 2)) >= 0 && hex(line.charAt(i + 3)) >= 0) {
            w.append((char) (hex(line.charAt(i + 2)) * 16 + hex(line.charAt(i + 3))));
            return i + 4;
        }
        w.append(switch (e) {
            case 'n' -> '\n';
            case 'r' -> '\r';
            case 't' -> '\t';
            case 'b' -> '\b';
            case 'a' -> (char) 7;
            default -> e;
        });
        return i + 2;
    }

    private static int hex(char c) {
        return Character.digit(c, 16);
    }

    private static IllegalArgumentException unbalanced(String where, String line) {
        return new IllegalArgumentException(where + ": unbalanced quotes in " + line);
    }
}
