"""The built documentation site in a real browser (issue 23): headless Chromium renders the
index, a gallery page and an API page; their pictures load, their internal links resolve and
they are not blank. Skipped where Debian's ``chromium`` is not installed (``.ci/run``
installs it)."""

from __future__ import annotations

import functools
import http.server
import re
import shutil
import subprocess
import tempfile
import threading
from urllib.parse import unquote, urljoin, urlparse

import pytest

from tests.test_docs import built_site

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no chromium on PATH (Debian: apt-get "
                                "install chromium; .ci/run installs it)")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--virtual-time-budget=15000"]
PAGES = ("index.html", "demos/flying_spaghetti.html", "api/fxrod.core.loads.html")

#: A page of the same origin that loads PAGE in an iframe and reports, once it has loaded,
#: every picture (complete, natural width) and link of it into its own DOM.
PROBE = """<!doctype html><html><body><pre id="report">pending</pre>
<iframe id="f" src="{page}" width="1280" height="2000"></iframe>
<script>
document.getElementById('f').addEventListener('load', function () {{
  var d = this.contentDocument;
  function report() {{
    var imgs = Array.from(d.images).map(function (i) {{
      return 'IMG ' + i.complete + ' ' + i.naturalWidth + ' ' + i.getAttribute('src'); }});
    var links = Array.from(d.querySelectorAll('a[href]')).map(function (a) {{
      return 'LINK ' + a.getAttribute('href'); }});
    var text = (d.querySelector('article') || d.body).innerText.trim().length;
    document.getElementById('report').textContent =
      ['TEXT ' + text, 'TITLE ' + d.title].concat(imgs, links).join('\\n');
  }}
  setTimeout(report, 1500);
}});
</script></body></html>"""


def chromium(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """Run headless Chromium with a fresh profile."""
    with tempfile.TemporaryDirectory(prefix="fxrod-chromium-") as profile:
        return subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *args],
                              capture_output=True, text=True, timeout=timeout)


@functools.cache
def server() -> str:
    """Serve the built site on 127.0.0.1 (a thread of this process); return its URL."""
    site = built_site()
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(site))
    handler.log_message = lambda *a: None
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{httpd.server_address[1]}/"


def probe(page: str) -> list[str]:
    """The report lines of :data:`PROBE` for ``page`` (as rendered by Chromium)."""
    site = built_site()
    name = f"_probe_{page.replace('/', '_')}"
    (site / name).write_text(PROBE.format(page=page))
    p = chromium("--dump-dom", server() + name)
    m = re.search(r'<pre id="report">(.*?)</pre>', p.stdout, re.S)
    assert m and m.group(1) != "pending", p.stdout[-2000:] + p.stderr[-2000:]
    return m.group(1).replace("&amp;", "&").splitlines()


@pytest.mark.parametrize("page", PAGES)
def test_page_renders_with_pictures_and_links(page):
    site = built_site()
    report = probe(page)
    text = int(report[0].split()[1])
    assert text > 300, report[:2]                        # the article is not blank
    imgs = [line.split(" ", 3) for line in report if line.startswith("IMG ")]
    for _, complete, width, src in imgs:
        assert complete == "true" and int(width) > 0, f"{page}: picture {src} did not load"
    if page.startswith(("index", "demos/")):
        assert any("/gallery/" in s or "_images/" in s for *_, s in imgs), imgs
    base = urljoin("http://site/", page)
    broken = []
    for line in report:
        if not line.startswith("LINK "):
            continue
        url = urlparse(urljoin(base, line[5:]))
        if url.netloc != "site":
            continue                                     # external link
        target = site / unquote(url.path.lstrip("/"))
        if target.is_dir():
            target = target / "index.html"
        if not target.is_file():
            broken.append(line[5:])
    assert not broken, f"{page}: links to missing pages {broken}"


def test_screenshot_is_not_blank(tmp_path):
    """The gallery page as a picture: many colours (text, the rod picture), not a white
    page."""
    from PIL import Image

    shot = tmp_path / "page.png"
    p = chromium("--window-size=1280,1600", f"--screenshot={shot}",
                 server() + "demos/flying_spaghetti.html")
    assert shot.is_file(), p.stderr[-2000:]
    with Image.open(shot) as im:
        rgb = im.convert("RGB")
        colours = rgb.getcolors(maxcolors=1 << 20)
        assert im.size == (1280, 1600)
    assert colours is not None and len(colours) > 500
    white = {rgb_: c for c, rgb_ in colours}.get((255, 255, 255), 0)
    assert white < 0.9 * 1280 * 1600

