package dev.colossal.server;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.crypto.Cipher;
import javax.crypto.EncryptedPrivateKeyInfo;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.PBEKeySpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * Certificates and private keys from the PEM files OpenSSL writes, which is what tls-cert-file and
 * tls-key-file name. Keys come as PKCS#8 ({@code BEGIN PRIVATE KEY}, or {@code BEGIN ENCRYPTED
 * PRIVATE KEY} with a password), or in OpenSSL's traditional forms ({@code BEGIN RSA PRIVATE KEY},
 * {@code BEGIN EC PRIVATE KEY}, either with {@code Proc-Type: 4,ENCRYPTED}), which are rewrapped as
 * PKCS#8 for the JDK's key factories. Every failure is a {@link TlsSetupException} that names the
 * flag, the file and the remedy.
 */
final class PemFiles {

    /** rsaEncryption, 1.2.840.113549.1.1.1, as a DER OID element. */
    private static final byte[] RSA_OID = HexFormat.of().parseHex("06092a864886f70d010101");
    /** id-ecPublicKey, 1.2.840.10045.2.1. */
    private static final byte[] EC_OID = HexFormat.of().parseHex("06072a8648ce3d0201");
    private static final byte[] DER_NULL = {Der.NULL, 0};
    private static final byte[] VERSION_0 = {Der.INTEGER, 1, 0};
    private static final List<String> KEY_ALGORITHMS = List.of("RSA", "EC", "Ed25519", "Ed448", "RSASSA-PSS");

    private PemFiles() {}

    /** One {@code -----BEGIN type-----} block: its RFC 1421 headers and its decoded contents. */
    private record Block(String type, Map<String, String> headers, byte[] der) {}

    /**
     * @param flag the setting that named the file, for messages
     * @return the certificates in {@code file}, in order (a server's chain starts with its own)
     */
    static List<X509Certificate> certificates(String flag, Path file) throws TlsSetupException {
        byte[] pem = read(flag, file);
        try {
            List<X509Certificate> certs = new ArrayList<>();
            for (var c : CertificateFactory.getInstance("X.509").generateCertificates(new ByteArrayInputStream(pem))) {
                certs.add((X509Certificate) c);
            }
            if (certs.isEmpty()) {
                throw new CertificateException("no certificate");
            }
            return certs;
        } catch (CertificateException e) {
            throw new TlsSetupException("--" + flag + " " + file + " holds no PEM certificate (-----BEGIN CERTIFICATE-----): "
                    + e.getMessage() + "; give the certificate file openssl wrote (e.g. openssl x509 ... -out server.crt)", e);
        }
    }

    /**
     * @param pass the password of an encrypted key, or null
     * @return the first private key in {@code file} (tls-key-file)
     */
    static PrivateKey privateKey(Path file, String pass) throws TlsSetupException {
        String text = new String(read("tls-key-file", file), StandardCharsets.US_ASCII);
        Block key = blocks(file, text).stream().filter(b -> b.type.endsWith("PRIVATE KEY")).findFirst()
                .orElseThrow(() -> new TlsSetupException("--tls-key-file " + file + " holds no PEM private key"
                        + " (-----BEGIN PRIVATE KEY-----): give the key file openssl wrote with the certificate"));
        String encrypted = key.type.equals("ENCRYPTED PRIVATE KEY") ? "PKCS#8"
                : String.valueOf(key.headers.get("Proc-Type")).contains("ENCRYPTED") ? key.headers.get("DEK-Info") : null;
        if (encrypted != null && pass == null) {
            throw new TlsSetupException("--tls-key-file " + file + " is encrypted: give its password with"
                    + " --tls-key-file-pass");
        }
        byte[] pkcs8;
        try {
            pkcs8 = switch (key.type) {
                case "PRIVATE KEY" -> key.der;
                case "ENCRYPTED PRIVATE KEY" -> decryptPkcs8(key.der, pass);
                case "RSA PRIVATE KEY" -> Der.write(Der.SEQUENCE, VERSION_0, Der.write(Der.SEQUENCE, RSA_OID, DER_NULL),
                        Der.write(Der.OCTET_STRING, traditional(key, pass)));
                case "EC PRIVATE KEY" -> ecToPkcs8(traditional(key, pass));
                default -> throw new TlsSetupException("--tls-key-file " + file + " holds a " + key.type + ", which this"
                        + " server does not read: convert it to PKCS#8 with openssl pkcs8 -topk8 -nocrypt -in " + file
                        + " -out key.pem");
            };
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            if (encrypted != null) {
                throw new TlsSetupException("--tls-key-file " + file + " cannot be decrypted with --tls-key-file-pass (" + e
                        + "): is the password right?", e);
            }
            throw new TlsSetupException("--tls-key-file " + file + " holds a damaged " + key.type + " (" + e + ")", e);
        }
        for (String algorithm : KEY_ALGORITHMS) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(pkcs8));
            } catch (GeneralSecurityException notThisKind) {
                // the next algorithm
            }
        }
        // A wrong password passes the padding check about once in 256 tries and gives bytes that are
        // no key: the same error as the other 255.
        throw new TlsSetupException("--tls-key-file " + file + (encrypted != null
                ? " cannot be decrypted with --tls-key-file-pass (it gave no key this JDK reads): is the password right?"
                : " holds a private key of a kind this JDK does not read (RSA, EC, Ed25519 and Ed448 are read)"));
    }

    private static byte[] read(String flag, Path file) throws TlsSetupException {
        try {
            return Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            throw new TlsSetupException("--" + flag + " " + file + ": no such file; give the path of a PEM file"
                    + " (relative paths are from " + Path.of("").toAbsolutePath() + ")", e);
        } catch (AccessDeniedException e) {
            throw new TlsSetupException("--" + flag + " " + file + ": permission denied; make it readable by this user", e);
        } catch (IOException e) {
            throw new TlsSetupException("--" + flag + " " + file + ": cannot read it: " + e, e);
        }
    }

    private static List<Block> blocks(Path file, String text) throws TlsSetupException {
        List<Block> out = new ArrayList<>();
        String[] lines = text.split("\r?\n");
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i].strip();
            if (!line.startsWith("-----BEGIN ") || !line.endsWith("-----")) {
                continue;
            }
            String type = line.substring(11, line.length() - 5);
            Map<String, String> headers = new LinkedHashMap<>();
            StringBuilder base64 = new StringBuilder();
            for (i++; i < lines.length && !lines[i].strip().startsWith("-----END "); i++) {
                String l = lines[i].strip();
                int colon = l.indexOf(':');
                if (colon > 0) {
                    headers.put(l.substring(0, colon).strip(), l.substring(colon + 1).strip());
                } else {
                    base64.append(l);
                }
            }
            try {
                out.add(new Block(type, headers, Base64.getDecoder().decode(base64.toString())));
            } catch (IllegalArgumentException e) {
                throw new TlsSetupException(file + ": the " + type + " block is not valid base64 (" + e.getMessage() + ")");
            }
        }
        return out;
    }

    private static byte[] decryptPkcs8(byte[] der, String pass) throws GeneralSecurityException {
        if (Pbes2.is(der)) {
            return Pbes2.decrypt(der, pass);
        }
        EncryptedPrivateKeyInfo info; // PBES1, as older OpenSSL wrote with -v1
        try {
            info = new EncryptedPrivateKeyInfo(der);
        } catch (IOException e) {
            throw new java.security.spec.InvalidKeySpecException("not an EncryptedPrivateKeyInfo", e);
        }
        String algorithm = info.getAlgName();
        var secret = SecretKeyFactory.getInstance(algorithm).generateSecret(new PBEKeySpec(pass.toCharArray()));
        Cipher cipher = Cipher.getInstance(algorithm);
        cipher.init(Cipher.DECRYPT_MODE, secret, info.getAlgParameters());
        return info.getKeySpec(cipher).getEncoded();
    }

    /**
     * The DER of a traditional key block, decrypted if its headers say it is. OpenSSL derives the
     * key as EVP_BytesToKey with MD5 and one round, salted with the IV's first 8 bytes.
     */
    private static byte[] traditional(Block key, String pass) throws GeneralSecurityException {
        String dek = key.headers.get("DEK-Info");
        if (!String.valueOf(key.headers.get("Proc-Type")).contains("ENCRYPTED") || dek == null) {
            return key.der;
        }
        String[] parts = dek.split(",");
        String name = parts[0].strip().toUpperCase(java.util.Locale.ROOT);
        byte[] iv = HexFormat.of().parseHex(parts[1].strip());
        int keyLength;
        String transform;
        if (name.startsWith("AES-") && name.endsWith("-CBC")) {
            keyLength = Integer.parseInt(name.substring(4, name.length() - 4)) / 8;
            transform = "AES";
        } else if (name.equals("DES-EDE3-CBC")) {
            keyLength = 24;
            transform = "DESede";
        } else {
            throw new java.security.NoSuchAlgorithmException("DEK-Info cipher " + name + " (AES-*-CBC and DES-EDE3-CBC"
                    + " are read; convert the key with openssl pkcs8 -topk8)");
        }
        var md5 = java.security.MessageDigest.getInstance("MD5");
        byte[] derived = new byte[0];
        byte[] last = new byte[0];
        while (derived.length < keyLength) {
            md5.update(last);
            md5.update(pass.getBytes(StandardCharsets.UTF_8));
            md5.update(iv, 0, 8);
            last = md5.digest();
            byte[] grown = java.util.Arrays.copyOf(derived, derived.length + last.length);
            System.arraycopy(last, 0, grown, derived.length, last.length);
            derived = grown;
        }
        Cipher cipher = Cipher.getInstance(transform + "/CBC/PKCS5Padding");
        cipher.init(Cipher.DECRYPT_MODE, new SecretKeySpec(derived, 0, keyLength, transform), new IvParameterSpec(iv));
        return cipher.doFinal(key.der);
    }

    /** SEC1's ECPrivateKey names its curve in {@code [0]}; PKCS#8 wants it beside the algorithm. */
    private static byte[] ecToPkcs8(byte[] sec1) throws GeneralSecurityException {
        Der.Element outer = Der.read(sec1, 0, sec1.length);
        int at = outer.start();
        byte[] curve = null;
        while (at < outer.end()) {
            Der.Element e = Der.read(sec1, at, outer.end());
            if (e.tag() == Der.CONTEXT_0) {
                curve = java.util.Arrays.copyOfRange(sec1, e.start(), e.end());
            }
            at = e.end();
        }
        if (curve == null) {
            throw new java.security.spec.InvalidKeySpecException("the EC key names no curve; write it with"
                    + " openssl ec -param_enc named_curve");
        }
        return Der.write(Der.SEQUENCE, VERSION_0, Der.write(Der.SEQUENCE, EC_OID, curve), Der.write(Der.OCTET_STRING, sec1));
    }
}
