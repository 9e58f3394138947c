package dev.durability.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * Headless Chromium on the admin pages: the Debian {@code chromium} and {@code chromium-driver} packages, named
 * explicitly so Selenium never tries to download a browser. It accepts the test servers' self-signed certificates
 * ({@link TestServerTls}). Screenshots go to the build's screenshots folder.
 */
final class AdminBrowser implements AutoCloseable {
    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");

    private final URI server;
    private final ChromeDriver driver;

    AdminBrowser(URI server) {
        this.server = server;
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.setAcceptInsecureCerts(true);
        options.addArguments(
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
                "--window-size=1400,1000");
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(CHROMEDRIVER.toFile())
                .usingAnyFreePort()
                .build();
        driver = new ChromeDriver(service, options);
    }

    WebDriver driver() {
        return driver;
    }

    /** Opens the admin pages and signs in through the form the server sends. */
    void signIn(String user, String password) {
        driver.get(server.resolve("/admin/").toString());
        waitFor(By.id("username")).sendKeys(user);
        driver.findElement(By.id("password")).sendKeys(password);
        driver.findElement(By.id("sign-in-button")).click();
    }

    WebElement waitFor(By locator) {
        return new WebDriverWait(driver, Duration.ofSeconds(20))
                .until(ExpectedConditions.visibilityOfElementLocated(locator));
    }

    void waitForText(By locator, String text) {
        new WebDriverWait(driver, Duration.ofSeconds(20)).until(ExpectedConditions.textToBe(locator, text));
    }

    /** Replaces an input's value, as an operator selecting it and typing would. */
    void type(By locator, String text) {
        WebElement input = waitFor(locator);
        input.clear();
        input.sendKeys(text);
    }

    void screenshot(String name) {
        try {
            Path folder = Path.of(System.getProperty("it.screenshots", "target/screenshots"));
            Files.createDirectories(folder);
            Files.copy(
                    driver.getScreenshotAs(OutputType.FILE).toPath(),
                    folder.resolve(name + ".png"),
                    StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        driver.quit();
    }
}
