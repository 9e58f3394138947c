package dev.durability.bench.server;

import dev.durability.bench.noop.NoopConsumer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.transform.OutputKeys;
import javax.xml.transform.TransformerFactory;
import javax.xml.transform.dom.DOMSource;
import javax.xml.transform.stream.StreamResult;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * Adds the no-op consumer to a server's copy of the EAR: a WAR holding {@link NoopConsumer}, declared as a module in
 * the EAR's application.xml (edited as XML), so it shares the library in the EAR's lib directory as the demo does.
 */
final class NoopWar {
    private static final String WAR = "bench-noop.war";
    private static final String BEANS = "<beans xmlns=\"https://jakarta.ee/xml/ns/jakartaee\" version=\"4.0\""
            + " bean-discovery-mode=\"annotated\"/>\n";

    private NoopWar() {}

    static void addTo(Path ear) throws IOException {
        try (FileSystem archive = FileSystems.newFileSystem(URI.create("jar:" + ear.toUri()), Map.of())) {
            Files.write(archive.getPath(WAR), war());
            Path descriptor = archive.getPath("META-INF/application.xml");
            Files.write(descriptor, withModule(Files.readAllBytes(descriptor)));
        }
    }

    private static byte[] war() throws IOException {
        String classFile = NoopConsumer.class.getName().replace('.', '/') + ".class";
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ZipOutputStream war = new ZipOutputStream(bytes);
                InputStream compiled = NoopConsumer.class.getClassLoader().getResourceAsStream(classFile)) {
            if (compiled == null) {
                throw new IOException(classFile + " is not on the classpath");
            }
            war.putNextEntry(new ZipEntry("WEB-INF/classes/" + classFile));
            compiled.transferTo(war);
            war.putNextEntry(new ZipEntry("WEB-INF/beans.xml"));
            war.write(BEANS.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }
        return bytes.toByteArray();
    }

    /** The descriptor with the WAR's module before its library directory, as modules come first. */
    private static byte[] withModule(byte[] descriptor) throws IOException {
        try {
            DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
            factory.setNamespaceAware(true);
            Document document = factory.newDocumentBuilder().parse(new java.io.ByteArrayInputStream(descriptor));
            Element application = document.getDocumentElement();
            String ns = application.getNamespaceURI();
            Element module = document.createElementNS(ns, "module");
            Element web = document.createElementNS(ns, "web");
            Element uri = document.createElementNS(ns, "web-uri");
            uri.setTextContent(WAR);
            Element root = document.createElementNS(ns, "context-root");
            root.setTextContent("/bench-noop");
            web.appendChild(uri);
            web.appendChild(root);
            module.appendChild(web);
            Node library =
                    application.getElementsByTagNameNS(ns, "library-directory").item(0);
            application.insertBefore(module, library);
            var transformer = TransformerFactory.newInstance().newTransformer();
            transformer.setOutputProperty(OutputKeys.INDENT, "yes");
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            transformer.transform(new DOMSource(document), new StreamResult((OutputStream) out));
            return out.toByteArray();
        } catch (javax.xml.parsers.ParserConfigurationException
                | org.xml.sax.SAXException
                | javax.xml.transform.TransformerException e) {
            throw new IOException("cannot add " + WAR + " to application.xml", e);
        }
    }
}
