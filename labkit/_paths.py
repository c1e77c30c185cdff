"""Where labkit's own files are: the package folder, and the checkout around it when there is
one.
"""

from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
CHECKOUT = PACKAGE.parent  # a checkout's root; in an installed wheel, site-packages
