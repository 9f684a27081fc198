"""PDF factories for the tests: good, bad and odd files, generated with reportlab (and by hand)."""

from __future__ import annotations

from pathlib import Path

from reportlab.lib.pagesizes import A4
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.cidfonts import UnicodeCIDFont
from reportlab.pdfgen import canvas


def text_pdf(path: Path, pages: list[list[str]], *, encrypt: str | None = None, cjk: bool = False) -> Path:
    """One page per list of lines (an empty list draws a filled rectangle only: an 'image-only' page)."""
    font = "Helvetica"
    if cjk:
        if "STSong-Light" not in pdfmetrics.getRegisteredFontNames():
            pdfmetrics.registerFont(UnicodeCIDFont("STSong-Light"))
        font = "STSong-Light"
    c = canvas.Canvas(str(path), pagesize=A4, encrypt=encrypt)
    for lines in pages:
        if not lines:
            c.rect(72, 400, 300, 200, fill=1)
        c.setFont(font, 11)
        for k, line in enumerate(lines):
            c.drawString(72, 760 - 16 * k, line)
        c.showPage()
    c.save()
    return path


def zero_page_pdf(path: Path) -> Path:
    """A syntactically valid PDF whose page tree is empty."""
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [] /Count 0 >>"]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for k, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{k} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    path.write_bytes(bytes(out))
    return path


def truncated_pdf(path: Path, good: Path, keep: float = 0.3) -> Path:
    data = good.read_bytes()
    path.write_bytes(data[: int(len(data) * keep)])
    return path


def bad_corpus(folder: Path) -> dict[str, Path]:
    """One file of each kind of trouble, plus two good ones."""
    folder.mkdir(parents=True, exist_ok=True)
    good = text_pdf(
        folder / "good.pdf", [["Revenue 1,234 1,100", "Net income 321 300"], ["Second page text"]]
    )
    files = {
        "good": good,
        "good_zh": text_pdf(
            folder / "good_zh.pdf", [["营业收入 5,631,204 4,987,116", "资本充足率 15.44%"]], cjk=True
        ),
        "not_pdf": folder / "not_pdf.pdf",
        "empty": folder / "empty.pdf",
        "truncated": truncated_pdf(folder / "truncated.pdf", good),
        "encrypted": text_pdf(folder / "encrypted.pdf", [["secret figures 1 2 3"]], encrypt="secret"),
        "zero_pages": zero_page_pdf(folder / "zero_pages.pdf"),
        "scanned": text_pdf(folder / "scanned.pdf", [[]]),
        "half_scanned": text_pdf(folder / "half_scanned.pdf", [["Some text on page one"], []]),
    }
    files["not_pdf"].write_text("name,value\nthis is a CSV file, not a PDF\n")
    files["empty"].write_bytes(b"")
    return files


def image_only_pdf(path: Path, source: Path, dpi: int = 200) -> Path:
    """`source`'s pages rasterised at `dpi` and embedded as images: each page of the result has one
    image as its only content and no text layer (what a scanner produces)."""
    import pypdfium2 as pdfium
    from reportlab.lib.utils import ImageReader

    doc = pdfium.PdfDocument(str(source))
    c = canvas.Canvas(str(path))
    try:
        for page in doc:
            width, height = page.get_size()
            image = page.render(scale=dpi / 72).to_pil()
            c.setPageSize((width, height))
            c.drawImage(ImageReader(image), 0, 0, width, height)
            c.showPage()
    finally:
        doc.close()
    c.save()
    return path
