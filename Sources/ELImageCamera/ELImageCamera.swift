import ELImage
